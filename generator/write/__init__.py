"""Stage 5, write: the only stage that touches the output folder. Every output of a build is staged in
a release folder and published by one atomic switch; the site engine (mkdocs with Material) makes the
site from the rendered pages inside that release."""
