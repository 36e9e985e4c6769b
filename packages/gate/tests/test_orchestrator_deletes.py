"""Deploy and orchestration CLIs that tear down what runs elsewhere.

Argo CD's ``app delete --cascade`` deletes every resource of the application,
``flux uninstall`` removes Flux and its objects from the cluster, ``nomad job stop
-purge`` drops a job and its history, ``sam delete`` the stack, ``docker stack rm``
a swarm stack's services, ``heroku addons:destroy`` an add-on with its data (a
Postgres database).  None of it touches a local file.  Their read commands stay
allowed.
"""

from __future__ import annotations

import pytest

from .conftest import corpus_verdict as _verdict


@pytest.mark.parametrize(
    "command",
    [
        "argocd app delete prod-api --cascade -y",  # https://argo-cd.readthedocs.io/en/stable/user-guide/commands/argocd_app_delete/
        "flux uninstall --silent",  # https://fluxcd.io/flux/cmd/flux_uninstall/
        "nomad job stop -purge api",  # https://developer.hashicorp.com/nomad/docs/commands/job/stop
        "sam delete --stack-name prod --no-prompts",  # https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-cli-command-reference-sam-delete.html
        "docker stack rm prod",  # https://docs.docker.com/reference/cli/docker/stack/rm/
        "heroku addons:destroy heroku-postgresql --app acme --confirm acme",  # https://devcenter.heroku.com/articles/heroku-cli-commands
    ],
)
def test_teardown_is_stopped(command: str) -> None:
    assert _verdict(command) in ("ASK_USER", "BLOCK")


@pytest.mark.parametrize(
    "command",
    [
        "argocd app get prod-api",
        "argocd app sync prod-api",
        "flux get kustomizations",
        "nomad job status api",
        "sam deploy --guided",
        "docker stack ls",
        "heroku addons --app acme",
    ],
)
def test_their_reads_stay_allowed(command: str) -> None:
    assert _verdict(command) == "ALLOW"
