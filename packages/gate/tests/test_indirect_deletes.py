"""Commands that delete without saying delete.

``kubectl apply --prune`` deletes every labelled object the files no longer
list; ``kubectl replace --force`` deletes and recreates (a volume claim's data
goes with it); ``aws s3 mv --recursive`` out of a bucket empties it; an S3
lifecycle rule expires objects later; ``--no-disable-api-termination`` takes
away the guard against a terminate; ``docker swarm leave --force`` on a manager
drops the swarm's state.  Each asks; the same commands without the flag stay
allowed.
"""

from __future__ import annotations

import pytest

from .conftest import corpus_verdict as _verdict


@pytest.mark.parametrize(
    "command",
    [
        # https://kubernetes.io/docs/tasks/manage-kubernetes-objects/declarative-config/#alternative-kubectl-apply-f-directory-prune
        "kubectl apply --prune -l app=api -f k8s/",
        "kubectl apply -f k8s/ --prune --all",
        # https://kubernetes.io/docs/reference/kubectl/generated/kubectl_replace/
        "kubectl replace --force -f pvc.yaml",
        # https://docs.aws.amazon.com/cli/latest/reference/s3/mv.html
        "aws s3 mv s3://acme-prod s3://other-bucket --recursive",
        # https://docs.aws.amazon.com/cli/latest/reference/s3api/put-bucket-lifecycle-configuration.html
        "aws s3api put-bucket-lifecycle-configuration --bucket acme-prod --lifecycle-configuration file://expire.json",
        # https://docs.aws.amazon.com/cli/latest/reference/ec2/modify-instance-attribute.html
        "aws ec2 modify-instance-attribute --instance-id i-1 --no-disable-api-termination",
        # https://docs.docker.com/reference/cli/docker/swarm/leave/
        "docker swarm leave --force",
    ],
)
def test_indirect_deletes_ask(command: str) -> None:
    assert _verdict(command) in ("ASK_USER", "BLOCK")


@pytest.mark.parametrize(
    "command",
    [
        "kubectl apply -f k8s/",
        "kubectl replace -f deploy.yaml",
        "aws s3 mv ./build.zip s3://acme-artifacts/",
        "aws s3 mv s3://acme-artifacts/tmp/a.zip s3://acme-artifacts/a.zip",
        "aws ec2 modify-instance-attribute --instance-id i-1 --disable-api-termination",
        "docker swarm leave",
    ],
)
def test_the_plain_forms_stay_allowed(command: str) -> None:
    assert _verdict(command) == "ALLOW"
