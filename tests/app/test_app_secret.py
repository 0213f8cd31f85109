"""The owner-token secret (``app/_secret.py``): the configured one when set; otherwise one made once,
kept beside the database with mode 600, and read back the same after a restart."""

from __future__ import annotations

import os
import stat

from pydantic import SecretStr

from vibesearch.app import Access, secret_file, server_secret
from vibesearch.config import Settings


def test_a_configured_key_is_used_and_nothing_is_written(tmp_path):
    settings = Settings(db=tmp_path / "app.db", tasks="", secret_key=SecretStr("shared-by-the-servers"))
    assert server_secret(settings) == server_secret(settings)
    assert not secret_file(settings.db).exists()


def test_unset_a_secret_is_kept_beside_the_database_and_read_back(tmp_path):
    settings = Settings(db=tmp_path / "app.db", tasks="")
    first = server_secret(settings)
    path = secret_file(settings.db)
    assert path == tmp_path / "app.db.secret"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(first) == 32
    assert server_secret(settings) == first  # the next server start reads the same one
    token = Access(settings).issue()
    assert Access(settings).valid(token)  # so a token one server issued is honoured by the next
    other = Settings(db=tmp_path / "other.db", tasks="")
    assert not Access(other).valid(token)  # another database's server is another secret


def test_a_copy_that_lost_its_mode_is_made_private_again(tmp_path):
    settings = Settings(db=tmp_path / "app.db", tasks="")
    kept = server_secret(settings)
    path = secret_file(settings.db)
    os.chmod(path, 0o644)
    assert server_secret(settings) == kept
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_file_without_a_secret_is_not_taken_for_one(tmp_path, caplog):
    settings = Settings(db=tmp_path / "app.db", tasks="")
    secret_file(settings.db).write_text("not hex\n")
    os.chmod(secret_file(settings.db), 0o600)
    a, b = server_secret(settings), server_secret(settings)
    assert a != b  # a secret of the process alone each time, and a warning naming the file
    assert "app.db.secret" in caplog.text and "VIBESEARCH_SECRET_KEY" in caplog.text


def test_a_postgresql_database_keeps_its_secret_in_the_state_folder_without_the_password(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    url = "postgresql+psycopg://ann:hunter2-secret@db.example:5432/vibes"
    path = secret_file(url)
    assert path.parent == tmp_path / "state" / "vibesearch" and "hunter2" not in str(path)
    assert secret_file("postgresql+psycopg://ann:another@db.example:5432/vibes") == path  # the same database


def test_the_pages_stored_token_key_outlives_a_restart_and_hides_the_secret(tmp_path):
    """``gr.BrowserState`` encrypts the page's stored owner token with a key the page's config
    carries: a random one per start made every restarted server forget every browser."""
    settings = Settings(db=tmp_path / "app.db", tasks="")
    key = Access(settings).browser_key()
    assert key == Access(settings).browser_key() and len(key) == 32
    assert key != Access(Settings(db=tmp_path / "other.db", tasks="")).browser_key()
    assert server_secret(settings).hex()[:16] not in key and key not in secret_file(settings.db).read_text()
