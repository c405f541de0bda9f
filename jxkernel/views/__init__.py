"""What jxkernel shows you: the views that explain a program, built on the core and imported by
nothing below them (the runtime publishes events, as jit its compilations to
core/compile_record.py, and these subscribe and explain).

Each view loads on first use: `import jxkernel.views` loads none of them.
"""
