"""Containers: `Sequential`, `LayerList`, `LayerDict`, `ParameterList`."""
import collections

from .layers import Layer, _is_param


class Sequential(Layer):
    """Runs its layers in order. Takes layers, or ``(name, layer)`` pairs, or one OrderedDict.

    Example:
        >>> net = oar.nn.Sequential(oar.nn.Linear(4, 8), oar.nn.ReLU(), oar.nn.Linear(8, 2))
    """

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], (dict, collections.OrderedDict)):
            layers = list(layers[0].items())
        if layers and isinstance(layers[0], (list, tuple)):
            for name, layer in layers:
                self.add_sublayer(name, layer)
        else:
            for i, layer in enumerate(layers):
                self.add_sublayer(str(i), layer)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return Sequential(*list(self._sub_layers.values())[idx])
        if isinstance(idx, str):
            return self._sub_layers[idx]
        n = len(self._sub_layers)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range for a Sequential of {n} layers")
        return list(self._sub_layers.values())[idx % n]

    def __setitem__(self, idx, layer):
        key = list(self._sub_layers.keys())[idx] if isinstance(idx, int) else idx
        self.add_sublayer(key, layer)

    def __delitem__(self, idx):
        key = list(self._sub_layers.keys())[idx] if isinstance(idx, int) else idx
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, layer):
        self.add_sublayer(str(len(self._sub_layers)), layer)
        return self

    def insert(self, index, layer):
        """Inserts `layer` before position `index` (negative counts from the end); the layers must be numbered
        "0".."n-1" (as Paddle, which renumbers them).

        Example:
            >>> net = oar.nn.Sequential(oar.nn.Linear(2, 2)).insert(0, oar.nn.ReLU())
            >>> [type(m).__name__ for m in net]
            ['ReLU', 'Linear']
        """
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.insert: expected a Layer, got {type(layer).__name__}")
        n = len(self._sub_layers)
        if not -n <= index <= n:
            raise IndexError(f"Sequential.insert: index {index} is out of range for {n} layers")
        if list(self._sub_layers) != [str(i) for i in range(n)]:
            raise ValueError(f"Sequential.insert needs layers numbered 0..{n - 1}, got names "
                             f"{list(self._sub_layers)}")
        layers = list(self._sub_layers.values())
        layers.insert(index + n if index < 0 else index, layer)
        self._sub_layers.clear()
        for i, m in enumerate(layers):
            self.add_sublayer(str(i), m)
        return self

    def extend(self, layers):
        """Appends each layer of `layers`.

        Example:
            >>> len(oar.nn.Sequential().extend([oar.nn.ReLU(), oar.nn.Tanh()]))
            2
        """
        for layer in layers:
            self.append(layer)
        return self

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    """A list of sublayers, indexed like a Python list; its layers' parameters belong to the owner.

    Example:
        >>> blocks = oar.nn.LayerList([oar.nn.Linear(4, 4) for _ in range(3)])
    """

    def __init__(self, sublayers=None):
        super().__init__()
        for layer in sublayers or ():
            self.append(layer)

    def _key(self, idx):
        n = len(self._sub_layers)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range for a LayerList of {n} layers")
        return str(idx % n)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return LayerList(list(self._sub_layers.values())[idx])
        return self._sub_layers[self._key(idx)]

    def __setitem__(self, idx, layer):
        self.add_sublayer(self._key(idx), layer)

    def __delitem__(self, idx):
        items = list(self._sub_layers.values())
        del items[idx]
        self._sub_layers.clear()
        for i, layer in enumerate(items):
            self._sub_layers[str(i)] = layer

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, sublayer):
        self.add_sublayer(str(len(self._sub_layers)), sublayer)
        return self

    def insert(self, index, sublayer):
        items = list(self._sub_layers.values())
        items.insert(index, sublayer)
        self._sub_layers.clear()
        for i, layer in enumerate(items):
            self.add_sublayer(str(i), layer)

    def extend(self, sublayers):
        for layer in sublayers:
            self.append(layer)
        return self


class LayerDict(Layer):
    """An ordered dict of sublayers.

    Example:
        >>> heads = oar.nn.LayerDict({'cls': oar.nn.Linear(8, 2), 'reg': oar.nn.Linear(8, 1)})
    """

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, layer):
        self.add_sublayer(key, layer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        self._sub_layers.clear()

    def pop(self, key):
        return self._sub_layers.pop(key)

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers):
        items = sublayers.items() if isinstance(sublayers, dict) else sublayers
        for key, layer in items:
            self.add_sublayer(key, layer)


class ParameterList(Layer):
    """A list of parameters registered with the owning layer.

    Example:
        >>> owner = oar.nn.Layer()
        >>> ps = oar.nn.ParameterList([owner.create_parameter([2, 2]) for _ in range(2)])
        >>> len(ps.parameters()), ps[0].shape
        (2, [2, 2])
    """

    def __init__(self, parameters=None):
        super().__init__()
        for p in parameters or ():
            self.append(p)

    def __getitem__(self, idx):
        n = len(self._parameters)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range for a ParameterList of {n} parameters")
        return self._parameters[str(idx % n)]

    def __setitem__(self, idx, param):
        self.add_parameter(str(idx % len(self._parameters)), param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter):
        if not _is_param(parameter):
            raise TypeError(f"ParameterList.append expects a Parameter, got {type(parameter).__name__}")
        self.add_parameter(str(len(self._parameters)), parameter)
        return self
