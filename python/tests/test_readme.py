"""The README's Python example runs as written."""

from conftest import REPO


def test_the_readme_python_example_runs():
    text = (REPO / "README.md").read_text()
    start = text.index("```python\n") + len("```python\n")
    code = text[start:text.index("```", start)]
    exec(compile(code, "README.md", "exec"), {})
