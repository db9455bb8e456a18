"""The nested containers the transforms look through, as torch's pytrees see them: tuples
(namedtuples too), lists and dicts are nodes; anything else (None too) is a leaf."""


class Spec:
    """The shape of a tree: its node type, dict keys and children's specs (a leaf has none)."""

    def __init__(self, kind=None, keys=None, children=()):
        self.kind, self.keys, self.children = kind, keys, tuple(children)

    @property
    def is_leaf(self):
        return self.kind is None

    @property
    def num_leaves(self):
        return 1 if self.is_leaf else sum(c.num_leaves for c in self.children)

    def __eq__(self, other):
        return (isinstance(other, Spec) and self.kind is other.kind and self.keys == other.keys
                and self.children == other.children)

    def __repr__(self, indent=0):
        """torch's TreeSpec layout (error messages quote it): children after the first on their
        own lines, indented two spaces per level."""
        if self.is_leaf:
            return "*"
        if hasattr(self.kind, "_fields"):
            kind, context = "namedtuple", self.kind
        else:
            kind, context = self.kind.__name__, list(self.keys) if self.kind is dict else None
        indent += 2
        children = [c.__repr__(indent) for c in self.children]
        inner = (",\n" + " " * indent).join(children)
        return f"TreeSpec({kind}, {context}, [{inner}])"


class _DummyLeaf:
    def __repr__(self):
        return "*"


def treespec_pprint(spec):
    """The tree of `spec` written with * for its leaves, as torch's treespec_pprint (vjp's
    messages quote it, where vmap's quote the TreeSpec repr)."""
    return repr(tree_unflatten([_DummyLeaf() for _ in range(spec.num_leaves)], spec))


def _children(tree):
    if isinstance(tree, dict):
        return dict, tuple(tree), tuple(tree.values())
    if isinstance(tree, (tuple, list)):
        return type(tree), None, tuple(tree)
    return None, None, None


def tree_flatten(tree):
    """(leaves in order, spec)."""
    kind, keys, children = _children(tree)
    if kind is None:
        return [tree], Spec()
    leaves, specs = [], []
    for child in children:
        child_leaves, spec = tree_flatten(child)
        leaves += child_leaves
        specs.append(spec)
    return leaves, Spec(kind, keys, specs)


def tree_unflatten(leaves, spec):
    """The tree of `spec` holding `leaves` (inverse of tree_flatten)."""
    leaves = iter(leaves)

    def build(spec):
        if spec.is_leaf:
            return next(leaves)
        children = [build(c) for c in spec.children]
        if spec.kind is dict:
            return dict(zip(spec.keys, children))
        if spec.kind is list or spec.kind is tuple:
            return spec.kind(children)
        if hasattr(spec.kind, "_fields"):        # a namedtuple takes its fields positionally
            return spec.kind(*children)
        return spec.kind(children)
    return build(spec)


def broadcast_prefix(prefix, spec):
    """One value per leaf of `spec`, where `prefix` is a tree whose leaves stand for whole
    subtrees (vmap's in_dims, out_dims); None when its structure does not fit."""
    kind, keys, children = _children(prefix)
    if kind is None:
        return [prefix] * spec.num_leaves
    if spec.is_leaf or kind is not spec.kind or len(children) != len(spec.children):
        return None
    child_specs = spec.children
    if kind is dict:
        if set(keys) != set(spec.keys):
            return None
        # torch pairs a dict prefix with the subtree of the same key but lists the results in
        # the prefix's key order, not the tree's: followed, so vmap maps what torch maps
        child_specs = [spec.children[spec.keys.index(k)] for k in keys]
    result = []
    for child, child_spec in zip(children, child_specs):
        part = broadcast_prefix(child, child_spec)
        if part is None:
            return None
        result += part
    return result
