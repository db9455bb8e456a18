"""Resampling layers: PixelShuffle, PixelUnshuffle and Upsample."""
from . import functional as F
from .module import Module


class PixelShuffle(Module):
    """(*, C r^2, H, W) -> (*, C, H r, W r).

    >>> import numgrad as ng
    >>> ng.nn.PixelShuffle(2)(ng.ones(1, 8, 3, 3)).shape
    numgrad.Size([1, 2, 6, 6])
    """

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class Upsample(Module):
    """Resize to size, or by scale_factor, with F.interpolate ('nearest', 'linear', 'bilinear').

    >>> import numgrad as ng
    >>> ng.nn.Upsample(scale_factor=2, mode="bilinear")
    Upsample(scale_factor=2.0, mode='bilinear')
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size = size
        if isinstance(scale_factor, (tuple, list)):
            self.scale_factor = tuple(float(s) for s in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor is not None else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            return f"scale_factor={self.scale_factor!r}, mode={self.mode!r}"
        return f"size={self.size!r}, mode={self.mode!r}"
