"""The web app: server-rendered pages (Jinja2) on the same FastAPI app as the v1 API, at `/`.

`install(app, settings, db)` mounts it (`renamerd.commands.server.build_app` does, for `serve`
and `run`). Pages call the services (`renamerd.service`), never the database directly; plain
HTML forms work without JavaScript, and `static/app.js` adds live updates and copy buttons.
"""

from renamerd.web.app import install

__all__ = ["install"]
