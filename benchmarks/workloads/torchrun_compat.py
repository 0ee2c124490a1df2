#!/usr/bin/env python3
"""torch.distributed.run (torchrun), usable on Debian's torch 1.13 with Python 3.11.

Same arguments as `python3 -m torch.distributed.run`. torch < 2.0 on
Python >= 3.11 fails at start with "'NoneType' object has no attribute 'get'":
its Std.from_str looks the value up by iterating an IntFlag, and Python 3.11
no longer yields the zero member (Std.NONE) that way. This launcher replaces
Std.from_str with a direct Std(int) conversion when, and only when, the
installed one is broken, then runs torch's own launcher unchanged.
"""

import re
import sys

from torch.distributed.elastic.multiprocessing import api as _api


def _from_str(cls, vm):
    if re.match(_api._VALUE_REGEX, vm):
        return cls(int(vm))
    if re.match(_api._MAPPING_REGEX, vm):
        return {int(i): cls(int(v)) for i, v in (m.split(":") for m in vm.split(","))}
    raise ValueError("%s does not match: <%s> or <%s>" % (vm, _api._VALUE_REGEX, _api._MAPPING_REGEX))


def patch():
    """Fixes Std.from_str if it is the broken one; returns True if it patched."""
    if _api.Std.from_str("0") is None:
        _api.Std.from_str = classmethod(_from_str)
        return True
    return False


if __name__ == "__main__":
    patch()
    from torch.distributed.run import main

    sys.exit(main())
