"""What jxkernel shows you: the views that explain a program, built on the core and imported by
nothing below them (the runtime publishes events, as jit its compilations to
core/compile_record.py, and these subscribe and explain).

Each view loads on first use: `import jxkernel.views` loads none of them.
"""
from ..core.lazy_names import module_aliases

# the recompile explainer was views/compile_log.py; the old path stays importable until the
# notebook's comm and widgets name recompile_explainer (users reach it as jxkernel.compile_log)
module_aliases(__name__, {"compile_log": "jxkernel.views.recompile_explainer"})
