"""The deployment examples of docs/deploy.md (docs/deploy/) parse as YAML and have the parts the
document relies on. Docker and Kubernetes are not available to the tests, so nothing here starts
them: only their structure is checked."""

from __future__ import annotations

from pathlib import Path

import yaml

DEPLOY = Path(__file__).resolve().parent.parent / "docs" / "deploy"


def test_compose_file_has_db_upgrade_two_apps_and_workers():
    doc = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text(encoding="utf-8"))
    services = doc["services"]
    assert {"db", "upgrade", "app1", "app2", "worker"} <= set(services)
    assert services["db"]["image"].startswith("postgres:")
    assert services["upgrade"]["command"] == ["vibesearch", "db", "upgrade"]
    for name in ("app1", "app2", "worker"):  # the anchor merged in: every one waits for the upgrade
        svc = services[name]
        assert svc["depends_on"]["upgrade"]["condition"] == "service_completed_successfully"
        assert svc["environment"]["VIBESEARCH_DB"].startswith("postgresql+psycopg://")
    assert services["app1"]["command"][:2] == ["vibesearch", "serve"]
    assert services["worker"]["command"][:2] == ["vibesearch", "worker"]
    assert services["worker"]["deploy"]["replicas"] >= 2


def test_kubernetes_file_has_secret_upgrade_job_and_worker_deployment():
    docs = [d for d in yaml.safe_load_all((DEPLOY / "kubernetes.yaml").read_text(encoding="utf-8")) if d]
    kinds = {d["kind"]: d for d in docs}
    assert set(kinds) == {"Secret", "Job", "Deployment"}
    assert "VIBESEARCH_DB" in kinds["Secret"]["stringData"]
    job = kinds["Job"]["spec"]["template"]["spec"]
    assert job["containers"][0]["command"] == ["vibesearch", "db", "upgrade"]
    assert job["restartPolicy"] in ("OnFailure", "Never")
    dep = kinds["Deployment"]["spec"]
    assert dep["selector"]["matchLabels"] == dep["template"]["metadata"]["labels"]
    worker = dep["template"]["spec"]["containers"][0]
    assert worker["command"][:2] == ["vibesearch", "worker"]
    assert worker["envFrom"][0]["secretRef"]["name"] == kinds["Secret"]["metadata"]["name"]
