"""einsum, lowered onto existing ops: diagonals by indexing, sums, and one batched matmul per
pair of operands (permute + reshape to (batch, kept, contracted) @ (batch, contracted, kept)).
No derivative of its own: the ops it is made of carry theirs."""
import numpy as np

from .linalg import bmm
from .reduce import expand, sum as sum_


def einsum(equation, *operands):
    """torch.einsum: e.g. einsum('bij,bjk->bik', a, b); '...' broadcasts, operands may repeat a
    letter (diagonal), and an omitted '->' sums the letters seen twice."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    inputs, output = _parse(equation.replace(" ", ""), operands)
    sizes = _sizes(inputs, operands)
    terms = [_diagonal(t, letters) for t, letters in zip(operands, inputs)]
    # letters still needed: by the output, and by each later operand
    while len(terms) > 1:
        (a, la), (b, lb) = terms[0], terms[1]
        later = set(output).union(*(letters for _, letters in terms[2:]))
        terms[:2] = [_contract(a, la, b, lb, later, sizes)]
    result, letters = terms[0]
    result, letters = _sum_out(result, letters, set(output))
    result = _broadcast(result, letters, sizes)
    if letters != output:
        result = result.permute([letters.index(c) for c in output])
    return result


def _parse(equation, operands):
    """Subscripts of the inputs and the output as lists of letters; '...' becomes unique
    placeholders, aligned from the right across operands."""
    lhs, arrow, rhs = equation.partition("->")
    specs = lhs.split(",")
    if len(specs) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(specs) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    ell_dims = 0
    for k, (spec, t) in enumerate(zip(specs, operands)):
        named = len(spec.replace("...", ""))
        if "..." in spec:
            ell_dims = max(ell_dims, t.ndim - named)
        elif named != t.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({named}) does "
                               f"not match the number of dimensions ({t.ndim}) for operand {k} and "
                               "no ellipsis was given")
    ellipsis = [chr(0x2460 + i) for i in range(ell_dims)]

    def expand_spec(spec, ndim):
        if "..." not in spec:
            return list(spec)
        head, tail = spec.split("...")
        n = ndim - len(head) - len(tail)
        return list(head) + ellipsis[ell_dims - n:] + list(tail)
    inputs = [expand_spec(spec, t.ndim) for spec, t in zip(specs, operands)]
    if arrow:
        output = expand_spec(rhs, len(rhs.replace("...", "")) + ell_dims)
        seen = set().union(*inputs)
        for c in output:
            if c not in seen:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the "
                                   "equation for any input operand")
            if output.count(c) > 1:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the "
                                   "output")
    else:
        counts = {}
        for letters in inputs:
            for c in letters:
                counts[c] = counts.get(c, 0) + 1
        output = ellipsis + sorted(c for c, n in counts.items() if n == 1 and c not in ellipsis)
    return inputs, output


def _sizes(inputs, operands):
    """Each letter's size; size 1 broadcasts against any other."""
    sizes = {}
    for k, (letters, t) in enumerate(zip(inputs, operands)):
        for c, size in zip(letters, t.shape):
            seen = sizes.get(c, 1)
            if size != 1 and seen != 1 and size != seen:
                raise RuntimeError(f"einsum(): subscript {c} has size {size} for operand {k} which "
                                   f"does not broadcast with previously seen size {seen}")
            sizes[c] = size if seen == 1 else seen
    return sizes


def _diagonal(t, letters):
    """Take the diagonal over repeated letters (ii -> i)."""
    while len(set(letters)) != len(letters):
        c = next(c for c in letters if letters.count(c) > 1)
        first, second = [k for k, x in enumerate(letters) if x == c][:2]
        t = _diag_pair(t, first, second)
        letters = [x for k, x in enumerate(letters) if k != second]
    return t, letters


def _diag_pair(t, first, second):
    """The diagonal of dims first < second, placed at first."""
    n = t.shape[first]
    index = [slice(None)] * t.ndim
    index[first] = index[second] = np.arange(n)
    # advanced indices apart from each other move to the front: put the diagonal back at first
    result = t[tuple(index)]
    if second == first + 1:
        return result
    order = list(range(1, first + 1)) + [0] + list(range(first + 1, result.ndim))
    return result.permute(order)


def _sum_out(t, letters, keep):
    drop = [k for k, c in enumerate(letters) if c not in keep]
    if drop:
        t = sum_(t, tuple(drop))
        letters = [c for c in letters if c in keep]
    return t, letters


def _broadcast(t, letters, sizes):
    shape = tuple(sizes[c] for c in letters)
    return t if tuple(t.shape) == shape else expand(t, shape)


def _contract(a, la, b, lb, later, sizes):
    """One pair: sum letters nobody needs, then a batched matmul over the shared ones."""
    a, la = _sum_out(a, la, later | set(lb))
    b, lb = _sum_out(b, lb, later | set(la))
    batch = [c for c in la if c in lb and c in later]
    contracted = [c for c in la if c in lb and c not in later]
    left = [c for c in la if c not in lb]
    right = [c for c in lb if c not in la]
    a = _broadcast(a.permute([la.index(c) for c in batch + left + contracted]),
                   batch + left + contracted, sizes)
    b = _broadcast(b.permute([lb.index(c) for c in batch + contracted + right]),
                   batch + contracted + right, sizes)
    n = [int(np.prod([sizes[c] for c in group], dtype=np.int64))
         for group in (batch, left, contracted, right)]
    product = bmm(a.reshape(n[0], n[1], n[2]), b.reshape(n[0], n[2], n[3]))
    shape = [sizes[c] for c in batch + left + right]
    return product.reshape(shape), batch + left + right

