"""The gamma family: lgamma, digamma, polygamma (and mvlgamma), as torch has them."""

PUBLIC = ()
METHODS = ()
INPLACE = {}
