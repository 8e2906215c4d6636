"""``arena serve``: a hosted competition where invited participants submit agents and watch them climb.

``config`` reads a serve config (a ladder config with a ``[serve]`` table); ``auth`` makes and checks
tokens (stored only as HMACs under the server's secret); ``db`` keeps participants and uploads in the
competition's own SQLite file, and ``storage`` their files by content hash; ``archives`` checks an
upload's sizes and names before anything is unpacked, and unpacks it into a plugin folder of its own;
``checker`` runs ``arena check-agent``'s machinery on each queued upload in the sandbox; ``player``
admits accepted uploads to the ladder (``arena.ladder``) and plays it continuously; ``results`` reads the
ladder's store and published files for the pages; ``app`` (the JSON API) and ``pages`` (the HTML pages)
make the web app, built by a factory, behind the middleware of ``guards`` (body bound, rate limit,
security headers); ``server`` starts the ``worker`` processes and serves the app with uvicorn
(docs/serve.md).
"""
