"""Draw the backward graph behind a tensor (Graphviz), the common case of autograd.graph.lower."""
from .autograd.graph import lower


def draw(tensor, filename=None, format="svg", names=None):
    """The Graphviz text of the backward graph of `tensor` (or a tuple of roots); with `filename`,
    also render it there with Graphviz's `dot` program (`format`: svg, png, pdf...).

    >>> x = numgrad.tensor(2., requires_grad=True)
    >>> print(numgrad.viz.draw(x * x).splitlines()[0])
    digraph backward {
    """
    graph = lower(tensor, names=names)
    if filename is not None:
        graph.render(filename, format)
    return graph.to_dot()
