"""A site built from PostgreSQL: the module's database copied into a PostgreSQL database
(``vibesearch db copy``) gives the same results bundle as the SQLite one, and it verifies."""

from __future__ import annotations

import json

from vibesearch.site import build_site
from vibesearch.store import Store, upgrade_database


def _numbers(out) -> dict:
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    results.pop("generated_at")
    return results


def test_a_site_built_from_postgresql_is_the_sqlite_ones(cli, site_db, built_site, pg_cluster, tmp_path):
    url = pg_cluster.new_database()
    upgrade_database(url)
    res = cli("db", "copy", site_db.path, url)
    assert res.exit_code == 0, res.output
    out = tmp_path / "from-pg"
    build_site(Store(url), out, include_studies=True)
    assert _numbers(out) == _numbers(built_site)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == sorted(
        p.relative_to(built_site).as_posix() for p in built_site.rglob("*") if p.is_file())
    res = cli("site", "verify", out)
    assert res.exit_code == 0, res.output
    assert url.split("@")[-1] not in (out / "results.json").read_text(encoding="utf-8")  # the database's address is not published
