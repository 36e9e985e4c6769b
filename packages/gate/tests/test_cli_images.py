"""A cloud CLI run from its official image, whose entrypoint is the CLI.

``docker run amazon/aws-cli s3 rb s3://acme --force`` runs ``aws s3 rb ...``: the
image's ENTRYPOINT is ``aws``, so the words after the image are its arguments,
not a program.  The container's fresh file system protects nothing a cloud API
deletes.  The same images' read commands stay allowed.
"""

from __future__ import annotations

import pytest

from .conftest import corpus_verdict as _verdict


@pytest.mark.parametrize(
    "command",
    [
        # https://docs.aws.amazon.com/cli/latest/userguide/getting-started-docker.html
        "docker run --rm -v ~/.aws:/root/.aws amazon/aws-cli s3 rb s3://acme --force",
        "docker run --rm -it public.ecr.aws/aws-cli/aws-cli:2.15.0 s3 rm s3://acme --recursive",
        # https://hub.docker.com/r/hashicorp/terraform
        "docker run --rm -v $PWD:/w -w /w hashicorp/terraform:1.9 destroy -auto-approve",
        # https://hub.docker.com/r/bitnami/kubectl
        "docker run --rm -v ~/.kube:/.kube bitnami/kubectl:latest delete ns prod",
        # https://hub.docker.com/r/alpine/helm
        "podman run --rm alpine/helm uninstall api -n prod",
        # https://hub.docker.com/r/digitalocean/doctl
        "docker run --rm -e DIGITALOCEAN_ACCESS_TOKEN digitalocean/doctl compute droplet delete web-1 --force",
    ],
)
def test_the_cli_in_its_image_is_judged(command: str) -> None:
    assert _verdict(command) in ("ASK_USER", "BLOCK")


@pytest.mark.parametrize(
    "command",
    [
        "docker run --rm -v ~/.aws:/root/.aws amazon/aws-cli s3 ls",
        "docker run --rm -v $PWD:/w -w /w hashicorp/terraform:1.9 plan",
        "docker run --rm bitnami/kubectl:latest version --client",
        "docker run --rm --entrypoint sh hashicorp/terraform -c 'echo hi'",
    ],
)
def test_its_reads_stay_allowed(command: str) -> None:
    assert _verdict(command) == "ALLOW"
