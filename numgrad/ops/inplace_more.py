"""(being written)"""

PUBLIC = ()
METHODS = ()
INPLACE = {}
