"""Writes fuzz/corpus/checkpoint/python_torch_save: a checkpoint as Python's torch.save writes it
(Lightning's layout in small), so the checkpoint fuzz target reaches fulgur's Python-pickle
reader: an OrderedDict state_dict of fuzz/tiny_net.h's TinyNet, single-item dicts and lists,
tuples, wide integers and an instance of a dict subclass.

Usage: /usr/bin/python3 fuzz/write_python_seed.py OUTPUT_FILE
"""
import collections
import sys

import torch


class AttributeDict(dict):
    pass


class TinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)
        self.bn = torch.nn.BatchNorm1d(2)


torch.manual_seed(0)
torch.save({
    "epoch": 1,
    "global_step": 2**33,
    "pytorch-lightning_version": "2.6.5",
    "state_dict": TinyNet().state_dict(),
    "loops": {"fit_loop": {"state_dict": {}, "epoch_progress": {"total": {"ready": 1}}}},
    "callbacks": {"C": collections.OrderedDict(a=[1])},
    "optimizer_states": [{"param_groups": [{"betas": (0.9, 0.999), "params": [0]}]}],
    "hyper_parameters": AttributeDict(lr=0.5),
}, sys.argv[1])
