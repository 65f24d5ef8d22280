"""Sphinx configuration of monoflow's documentation site.

Nothing here is written by hand twice: the guide pages are the README's
sections, the topic pages are the files of docs/, and the API pages list the
public names of each namespace, whose text is their docstrings
(generate_pages.py writes all three into generated/ before each build).
CI builds the site with warnings as errors, so it cannot rot.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import generate_pages  # noqa: E402

project = "monoflow"
author = "the monoflow developers"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.mathjax", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_static_path = []

# A docstring's first line "add(input, other, *, alpha=1) -> Tensor" is the
# signature of a compiled method, which Python cannot introspect.
autodoc_docstring_signature = True
autodoc_default_options = {"undoc-members": False}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
# "Attributes:" sections as fields: classes are documented with :members:
# too, and two descriptions of one attribute would collide.
napoleon_use_ivar = True
# Links of the README and docs/ point into the repository (source files,
# benchmarks), which the site does not contain.
suppress_warnings = ["myst.xref_missing", "myst.header",
                     # an argument's type named in a docstring ("device") may
                     # match several classes (monoflow.device, cuda.device);
                     # the link goes to the first, which is the one meant
                     "ref.python"]
myst_heading_anchors = 3

generate_pages.write_all(os.path.dirname(__file__))
