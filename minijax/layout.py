"""``Layout`` and ``Format`` (JAX's ``jax.experimental.layout``): how an array's elements are laid
out in device memory, and that layout together with the array's sharding (``Array.format``).

minijax reads layouts (``x.format``); it does not yet take them as ``jit`` arguments.
"""

from __future__ import annotations

from minijax.sharding_types import Sharding


class AutoLayout:
    """``Layout.AUTO``: let the compiler choose the layout."""

    def __repr__(self):
        return "AUTO"


class Layout:
    """Dimension order from major to minor, the tiling and (for sub-byte dtypes) element size."""

    AUTO = AutoLayout()

    def __init__(self, major_to_minor, tiling=None, sub_byte_element_size_in_bits=0):
        self.major_to_minor = tuple(major_to_minor)
        self.tiling = None if tiling is None else tuple(map(tuple, tiling))
        self.sub_byte_element_size_in_bits = sub_byte_element_size_in_bits

    @staticmethod
    def from_pjrt_layout(pjrt_layout):
        xla_layout = pjrt_layout._xla_layout()
        return Layout(xla_layout.minor_to_major()[::-1], xla_layout.tiling(),
                      xla_layout.element_size_in_bits())

    def _key(self):
        return self.major_to_minor, self.tiling, self.sub_byte_element_size_in_bits

    def __repr__(self):
        return (f"Layout(major_to_minor={self.major_to_minor}, tiling={self.tiling}, "
                f"sub_byte_element_size_in_bits={self.sub_byte_element_size_in_bits})")

    def __hash__(self):
        return hash(self._key())

    def __eq__(self, other):
        return isinstance(other, Layout) and self._key() == other._key()

    def update(self, **kwargs):
        return Layout(kwargs.get("major_to_minor", self.major_to_minor),
                      kwargs.get("tiling", self.tiling),
                      kwargs.get("sub_byte_element_size_in_bits",
                                 self.sub_byte_element_size_in_bits))


class Format:
    """A ``Layout`` (or ``None`` / ``Layout.AUTO``) with a ``Sharding`` (or ``None``)."""

    __slots__ = ("layout", "sharding")

    def __init__(self, layout=None, sharding=None):
        if isinstance(layout, Layout) and sharding is None:
            raise ValueError(
                "Sharding has to be concrete when layout is of type "
                f"{type(layout)}. Please pass a `minijax.sharding.NamedSharding` or "
                "`minijax.sharding.SingleDeviceSharding` to the sharding argument. Got "
                f"sharding {sharding}")
        if not isinstance(layout, (Layout, AutoLayout, type(None))):
            raise TypeError(
                "Invalid value received for the layout argument. Expected values are `None`, "
                f"`Layout.AUTO` or an instance of `Layout`. Got {layout} of type {type(layout)}")
        if not isinstance(sharding, (Sharding, type(None))):
            raise TypeError(
                "Invalid value received for the sharding argument. Expected values are `None` "
                f"or an instance of `minijax.sharding.Sharding`. Got {sharding} of type "
                f"{type(sharding)}")
        self.layout = layout
        self.sharding = sharding

    def __repr__(self):
        return f"Format(layout={self.layout}, sharding={self.sharding})"

    def __eq__(self, other):
        return (isinstance(other, Format) and self.layout == other.layout
                and self.sharding == other.sharding)

    def __hash__(self):
        return hash((self.layout, self.sharding))
