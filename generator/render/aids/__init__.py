"""Render, the player aids: `cards` makes what an aid says, as HTML, and hands it to worker processes
that lay it out (`aid_layout`) and make the PDFs of the laid-out pieces (`aid_compose`)."""
