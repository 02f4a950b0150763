"""LeNet-5 as in Paddle's model zoo (for 1x28x28 inputs)."""
from ... import nn
from ...ops.manipulation import flatten


class LeNet(nn.Layer):
    """LeNet: two conv-relu-pool stages and three linear layers.

    Args:
        num_classes: output size of the last layer; <= 0 leaves out the classifier.

    Example:
        >>> model = oar.vision.models.LeNet()
        >>> model(oar.randn([4, 1, 28, 28])).shape
        [4, 10]
    """

    def __init__(self, num_classes=10):
        super().__init__()
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        if num_classes > 0:
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, num_classes))

    def forward(self, inputs):
        x = self.features(inputs)
        if self.num_classes > 0:
            x = flatten(x, 1)
            x = self.fc(x)
        return x
