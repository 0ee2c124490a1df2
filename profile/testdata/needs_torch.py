# A Python script for the pre-flight test: its interpreter must import torch.
