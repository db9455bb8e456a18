"""AdaptiveLogSoftmaxWithLoss: an approximate softmax over many classes (Grave et al., 2016):
frequent classes in a head, the rest in clusters whose smaller projections are computed only for
the rows that need them."""
import collections

import numpy as np

from ..ops.shape import cat
from ..ops.untracked import to_host
from ..tensor import Tensor
from . import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

_ASMoutput = collections.namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """The head scores the shortlist (classes below cutoffs[0]) and one entry per cluster; cluster
    i scores its classes through a projection in_features // div_value**(i+1) wide. forward
    returns (output, loss): each row's target log-probability and the mean negative of it.

    >>> import numgrad as ng
    >>> layer = ng.nn.AdaptiveLogSoftmaxWithLoss(32, 10, [4, 7])
    >>> layer(ng.randn(3, 32), ng.tensor([0, 5, 9])).output.shape
    numgrad.Size([3])
    """

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in "
                             "an increasing order, where each value is between 1 and "
                             "n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device,
                           dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            classes = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(
                Linear(in_features, hidden, bias=False, device=device, dtype=dtype),
                Linear(hidden, classes, bias=False, device=device, dtype=dtype)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for projection, scores in self.tail:
            projection.reset_parameters()
            scores.reset_parameters()

    def forward(self, input, target):
        labels = np.asarray(to_host(target._data if isinstance(target, Tensor) else target),
                            np.int64)
        if labels.ndim == 1:
            if input.shape[0] != labels.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input.ndim != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs "
                                   f"with size {input.shape}")
        elif labels.ndim == 0:
            if input.ndim != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs "
                                   f"with size {input.shape}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = labels.ndim > 0
        rows = input if batched else input.unsqueeze(0)
        labels = labels.reshape(-1)
        if labels.size and (labels.min() < 0 or labels.max() >= self.n_classes):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values "
                               f"in range [{labels.min()}, {labels.max()}] were found. ")
        # the head entry each row reads: its class in the shortlist, else its cluster's entry;
        # torch's graph: each cluster's log-probabilities copied into zeros in place, the
        # head's added in place
        head_entry = labels.copy()
        output = rows.new_zeros(labels.size)
        bounds = [0] + self.cutoffs
        for i in range(1, len(bounds) - 1):
            members = np.flatnonzero((labels >= bounds[i]) & (labels < bounds[i + 1]))
            if members.size == 0:
                continue
            head_entry[members] = self.shortlist_size + i - 1
            index = Tensor._make(members, False)
            scores = self.tail[i - 1](rows.index_select(0, index))
            within = Tensor._make((labels[members] - bounds[i])[:, None], False)
            output.index_copy_(0, index, F.log_softmax(scores, dim=1).gather(1, within).squeeze(1))
        head_logprob = F.log_softmax(self.head(rows), dim=1)
        output += head_logprob.gather(1, Tensor._make(head_entry[:, None], False)).squeeze()
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        head_logprob = F.log_softmax(head_output, dim=1)
        pieces = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            pieces.append(cluster_logprob
                          + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return cat(pieces, 1)

    def log_prob(self, input):
        """The log-probabilities of all n_classes classes, (N, n_classes)."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most probable class of each row (the full distribution only where the head's best
        entry is a cluster)."""
        head_output = self.head(input)
        best = to_host(head_output.argmax(1)._data).copy()
        outside = np.flatnonzero(best >= self.shortlist_size)
        if outside.size:
            index = Tensor._make(outside, False)
            full = self._full_log_prob(input[index], head_output[index])
            best[outside] = to_host(full.argmax(1)._data)
        return Tensor._make(best, False)
