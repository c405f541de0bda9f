#!/bin/sh
# The notebook layer's packages as Python 3.12 wheels in .whl/ (ignored by git), for a GPU
# machine with no registry (scripts/gpu_session.sh installs them there): IPython and what
# it needs, ipywidgets, anywidget, plotly, and for tests/notebook's real kernels ipykernel,
# jupyter_client and nbformat with theirs. Run here, where PyPI is reachable.
set -e
cd "$(dirname "$0")/.."
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >> .git/info/exclude
for p in ipython traitlets jedi parso decorator matplotlib-inline pexpect ptyprocess \
         prompt_toolkit wcwidth stack-data executing asttokens pure_eval \
         ipython-pygments-lexers comm ipywidgets widgetsnbextension jupyterlab_widgets \
         anywidget psygnal plotly narwhals \
         ipykernel jupyter_client jupyter_core pyzmq tornado debugpy psutil nest_asyncio \
         platformdirs python-dateutil six nbformat fastjsonschema jsonschema \
         jsonschema-specifications referencing rpds-py attrs typing_extensions; do
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
        --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 -d .whl "$p"
done
du -sh .whl
