"""tests/support and tests/data are on pytest's pythonpath (pyproject.toml), ahead of the venv:
a helper named like an installed package or a standard module hides that package from every test
(tests/support/jupyter_server.py once hid the `jupyter_server` package; it is lab_server.py now)."""
import importlib.machinery
import os
import sys

import locations  # tests/support: the repository's folders

ON_PYTHONPATH = [locations.SUPPORT, locations.DATA]


def _hidden(names) -> list:
    """The names among `names` that something off pytest's pythonpath also provides."""
    elsewhere = [p for p in sys.path if os.path.abspath(p or os.curdir) not in ON_PYTHONPATH]
    return [name for name in names
            if name in sys.stdlib_module_names or name in sys.builtin_module_names
            or importlib.machinery.PathFinder.find_spec(name, elsewhere) is not None]


def test_no_helper_hides_a_package_or_a_standard_module():
    helpers = sorted(name[:-3] for folder in ON_PYTHONPATH for name in os.listdir(folder)
                     if name.endswith(".py"))
    assert _hidden(helpers) == [], "rename these: an installed or standard module has the name"


def test_the_check_sees_packages_and_standard_modules():
    assert _hidden(["numpy", "json", "sys", "locations", "numerics"]) == ["numpy", "json", "sys"]
