"""Cloud settings that make data public or strip a resource's guard.

Nothing is deleted, yet the bucket is readable by anyone (``--acl public-read``,
``allUsers``), the database port is open to the internet (``0.0.0.0/0``), or
the next delete meets no deletion protection: leaks and disarmed guards that
only the words show.  Their narrow neighbours stay allowed.
"""

from __future__ import annotations

import pytest

from .conftest import corpus_verdict as _verdict


@pytest.mark.parametrize(
    "command",
    [
        # https://docs.aws.amazon.com/cli/latest/reference/s3api/put-bucket-acl.html
        "aws s3api put-bucket-acl --bucket acme-prod --acl public-read",
        "aws s3api put-object-acl --bucket acme-prod --key db.sql --acl public-read-write",
        # https://docs.aws.amazon.com/cli/latest/reference/ec2/authorize-security-group-ingress.html
        "aws ec2 authorize-security-group-ingress --group-id sg-1 --protocol tcp --port 5432 --cidr 0.0.0.0/0",
        # https://docs.aws.amazon.com/cli/latest/reference/rds/modify-db-instance.html
        "aws rds modify-db-instance --db-instance-identifier prod --no-deletion-protection --apply-immediately",
        "aws rds modify-db-instance --db-instance-identifier prod --publicly-accessible",
        # https://docs.aws.amazon.com/cli/latest/reference/iam/attach-user-policy.html
        "aws iam attach-user-policy --user-name x --policy-arn arn:aws:iam::aws:policy/AdministratorAccess",
        # https://cloud.google.com/storage/docs/access-control/making-data-public
        "gsutil iam ch allUsers:objectViewer gs://acme-prod",
        "gcloud storage buckets add-iam-policy-binding gs://acme-prod --member=allUsers --role=roles/storage.objectViewer",
        "gcloud projects add-iam-policy-binding acme --member=allUsers --role=roles/owner",
    ],
)
def test_exposure_is_stopped(command: str) -> None:
    assert _verdict(command) in ("ASK_USER", "BLOCK")


@pytest.mark.parametrize(
    "command",
    [
        "aws s3api put-bucket-acl --bucket acme-prod --acl private",
        "aws ec2 authorize-security-group-ingress --group-id sg-1 --protocol tcp --port 5432 --cidr 10.0.0.0/16",
        "aws rds modify-db-instance --db-instance-identifier prod --deletion-protection",
        "aws iam attach-user-policy --user-name x --policy-arn arn:aws:iam::aws:policy/ReadOnlyAccess",
        "gcloud projects add-iam-policy-binding acme --member=user:me@acme.com --role=roles/viewer",
        "gsutil iam ch user:me@acme.com:objectViewer gs://acme-prod",
    ],
)
def test_narrow_grants_stay_allowed(command: str) -> None:
    assert _verdict(command) == "ALLOW"
