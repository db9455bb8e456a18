"""(being written)"""

PUBLIC = ()     # names exported as numgrad.<name>
METHODS = ()    # names installed as Tensor methods (the tensor is the first argument)
INPLACE = {}    # in-place method name -> (out-of-place function, whether it saves its input)
