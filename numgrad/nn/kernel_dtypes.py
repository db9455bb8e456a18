"""torch's refusal of a dtype its kernel was not built for, in its words: '"avg_pool2d" not
implemented for 'Int''. Floating inputs always pass; `also` names the others the kernel takes
(torch's scalar type names: "Long", "Int", "Bool")."""
from .. import dtypes


def check_kernel_dtype(input, kernel, also=()):
    dtype = input.dtype
    if dtypes.is_floating(dtype) or dtypes.scalar_type_name(dtype) in also:
        return
    raise NotImplementedError(f'"{kernel}" not implemented for '
                              f"'{dtypes.scalar_type_name(dtype)}'")
