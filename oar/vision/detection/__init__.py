"""Kernels and ops behind `oar.vision.ops`: RoI pooling (roi.py), box utilities and NMS (boxes.py), YOLO heads
(yolo.py), deformable convolution (deform.py)."""
