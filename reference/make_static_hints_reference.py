"""Write tests/data/static_hints_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_static_hints_reference.py [--print]

Runs tests/data/static_hints_cases.py: per case, the error JAX raises and its whole text (the
cases' file named "<cases>"), and for a traced value used as a Python one whether the same run
with the argument static works.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")
sys.path.insert(0, DATA)


def main():
    import jax
    import static_hints_cases as cases
    out = cases.run(jax)
    for fact in out.values():
        fact["text"] = fact["text"].replace(cases.__file__, "<cases>")
    if "--print" in sys.argv:
        for name, fact in out.items():
            print(f"=== {name} {fact['error']} static_works={fact.get('static_works')}")
            print(fact["text"])
    with open(os.path.join(DATA, "static_hints_reference.json"), "w") as f:
        json.dump({"jax_version": jax.__version__, "cases": out}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
