"""The `blm browse` page: its template, script and style (jinja2 files, packaged as data)."""
