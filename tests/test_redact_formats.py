"""Secret masking: every supported format, no false alarms on ordinary text, idempotence."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextward.redact import KINDS, mask, mask_count, mask_data

# Fake values shaped like the real thing (never real credentials).
A32 = "abcdefghijklmnopqrstuvwxyz012345"
HEX32 = "0123456789abcdef0123456789abcdef"
SAMPLES: list[tuple[str, str, str]] = [
    (
        "private-key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
        "[secret:private-key]",
    ),
    ("private-block", "a <private>home address</private> b", "a [secret:private-block] b"),
    ("aws-access-key", "id AKIAIOSFODNN7EXAMPLE here", "id [secret:aws-access-key] here"),
    (
        "aws-secret-key",
        "Use this key for staging: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY please.",
        "Use this key for staging: [secret:aws-secret-key] please.",
    ),
    (
        "assignment",
        "Please use the password hunter2 from the vault.",
        "Please use the password [secret:assignment] from the vault.",
    ),
    ("assignment", "the password is: letmein2024!", "the password is: [secret:assignment]"),
    (
        "assignment",
        'The root password is "hunter two".',
        'The root password is "[secret:assignment]".',
    ),
    ("assignment", "The wifi password is sunflower.", "The wifi password is [secret:assignment]."),
    (
        "assignment",
        "The admin password is correct-horse-battery-staple; rotate it.",
        "The admin password is [secret:assignment]; rotate it.",
    ),
    (
        "assignment",
        "Our API token is tok-9f8e7d6c5b4a3928.",
        "Our API token is [secret:assignment].",
    ),
    (
        "assignment",
        "The deploy key is 9f8e7d6c5b4a39281706f5e4 now",
        "The deploy key is [secret:assignment] now",
    ),
    ("github-token", "ghp_" + A32 + "6789", "[secret:github-token]"),
    ("github-token", "github_pat_" + "A" * 22 + "_" + "b" * 59, "[secret:github-token]"),
    ("gitlab-token", "glpat-" + "x" * 20, "[secret:gitlab-token]"),
    ("slack-token", "xoxb-1234567890-abcdefghij", "[secret:slack-token]"),
    ("slack-webhook", "https://hooks.slack.com/services/T000/B000/XXXX", "[secret:slack-webhook]"),
    (
        "discord-webhook",
        "https://discord.com/api/webhooks/123/abcDEF_-",
        "[secret:discord-webhook]",
    ),
    ("anthropic-key", "sk-ant-api03-" + A32, "[secret:anthropic-key]"),
    ("openrouter-key", "sk-or-v1-" + HEX32 + HEX32, "[secret:openrouter-key]"),
    ("openai-key", "sk-proj-" + A32, "[secret:openai-key]"),
    ("google-key", "AIza" + "B" * 35, "[secret:google-key]"),
    ("google-oauth", "ya29." + A32, "[secret:google-oauth]"),
    ("stripe-key", "sk_live_" + A32, "[secret:stripe-key]"),
    ("npm-token", "npm_" + "a1" * 18, "[secret:npm-token]"),
    ("pypi-token", "pypi-AgEIcHlwaS5vcmc" + "x" * 40, "[secret:pypi-token]"),
    ("huggingface-token", "hf_" + "Ab" * 17, "[secret:huggingface-token]"),
    ("sendgrid-key", "SG." + "a" * 22 + "." + "b" * 43, "[secret:sendgrid-key]"),
    ("digitalocean-token", "dop_v1_" + HEX32 + HEX32, "[secret:digitalocean-token]"),
    ("shopify-token", "shpat_" + HEX32, "[secret:shopify-token]"),
    ("groq-key", "gsk_" + "a" * 52, "[secret:groq-key]"),
    ("xai-key", "xai-" + "a" * 80, "[secret:xai-key]"),
    ("vault-token", "hvs." + "a" * 24, "[secret:vault-token]"),
    ("age-secret-key", "AGE-SECRET-KEY-1" + "Q" * 58, "[secret:age-secret-key]"),
    ("databricks-token", "dapi" + HEX32, "[secret:databricks-token]"),
    ("telegram-bot-token", "123456789:AA" + "h" * 33, "[secret:telegram-bot-token]"),
    ("twilio-key", "SK" + HEX32, "[secret:twilio-key]"),
    ("mailgun-key", "key-" + HEX32, "[secret:mailgun-key]"),
    ("memory-key", "m0-" + A32, "[secret:memory-key]"),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijk", "[secret:jwt]"),
    (
        "azure-key",
        "AccountName=x;AccountKey=" + "Ab+/" * 10 + "==;",
        "AccountName=x;AccountKey=[secret:azure-key];",
    ),
    (
        "bearer",
        "Authorization: Bearer abcdefghijklmnopqrstuv",
        "Authorization: Bearer [secret:bearer]",
    ),
    (
        "basic-auth",
        "Authorization: Basic dXNlcjpwYXNzd29yZA==",
        "Authorization: Basic [secret:basic-auth]",
    ),
    (
        "url-password",
        "postgres://app:s3cret@db:5432/x",
        "postgres://[secret:url-password]@db:5432/x",
    ),
    (
        "url-password",
        "redis://:R3disPassw0rd@cache:6379",
        "redis://[secret:url-password]@cache:6379",
    ),
    (
        "api-key-header",
        'curl -H "X-Api-Key: abcdef123456789" https://x',
        'curl -H "X-Api-Key: [secret:api-key-header]" https://x',
    ),
    (
        "basic-auth",
        "curl -u deploy:Depl0yPassw0rd https://ci",
        "curl -u deploy:[secret:basic-auth] https://ci",
    ),
    ("flag", "mysql --password=hunter22 db", "mysql --password=[secret:flag] db"),
    ("flag", "sshpass -p Sup3rSecretPw ssh prod", "sshpass -p [secret:flag] ssh prod"),
    ("flag", "mysql -u root -pS3cretPw db", "mysql -u root -p[secret:flag] db"),
    ("flag", "docker login -u me -p Dock3rPw reg.io", "docker login -u me -p [secret:flag] reg.io"),
    (
        "assignment",
        "the admin password is hunter2hunter2",
        "the admin password is [secret:assignment]",
    ),
    ("assignment", "数据库密码是 Abc12345xyz", "数据库密码是 [secret:assignment]"),
    (
        "assignment",
        "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws configure set aws_secret_access_key [secret:assignment]",
    ),
    (
        "assignment",
        'The password for staging is "P@ssw0rd!2024"',
        'The password for staging is "[secret:assignment]"',
    ),
    ("assignment", "passwd hunter2hunter2", "passwd [secret:assignment]"),
    (
        "assignment",
        'curl -d "{\\"token\\": \\"abcd1234efgh5678zz\\"}"',
        'curl -d "{\\"token\\": \\"[secret:assignment]\\"}"',
    ),
    ("assignment", "DB_PASSWORD=hunter22", "DB_PASSWORD=[secret:assignment]"),
    # ODBC's "Pwd=", MySQL's MYSQL_PWD, "pwd:" in a config.
    (
        "assignment",
        "Server=db;Uid=sa;Pwd=Zebra!Plum42;",
        "Server=db;Uid=sa;Pwd=[secret:assignment];",
    ),
    ("assignment", "MYSQL_PWD=hunter22 mysql", "MYSQL_PWD=[secret:assignment] mysql"),
    ("assignment", "pwd: Zebra!Plum42", "pwd: [secret:assignment]"),
    ("assignment", 'export API_TOKEN="abc123def"', 'export API_TOKEN="[secret:assignment]"'),
    # .env lines whose name ends in PASS, any case, glued or not; keys shaped like keys.
    ("assignment", "DB_PASS=Hunter2Staging", "DB_PASS=[secret:assignment]"),
    ("assignment", "REDIS_PASS=Tr0ub4dor99", "REDIS_PASS=[secret:assignment]"),
    ("assignment", "ADMIN_PASS=changeme", "ADMIN_PASS=[secret:assignment]"),
    ("assignment", "PGPASS=hunter22", "PGPASS=[secret:assignment]"),
    ("assignment", "smtp_pass: Hunter2Staging", "smtp_pass: [secret:assignment]"),
    ("assignment", 'export PASS="Sw0rdfish!"', 'export PASS="[secret:assignment]"'),
    ("assignment", '{"db_pass": "Tr0ub4dor99"}', '{"db_pass": "[secret:assignment]"}'),
    (
        "assignment",
        "MASTER_KEY=0123456789abcdef0123456789abcdef",
        "MASTER_KEY=[secret:assignment]",
    ),
    (
        "assignment",
        "APP_KEY=base64:Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z=",
        "APP_KEY=[secret:assignment]",
    ),
    ("assignment", "encryption_key: Ab3dEf6hIj9kLm2nOp", "encryption_key: [secret:assignment]"),
    ("assignment", '{"client_secret": "abc123def"}', '{"client_secret": "[secret:assignment]"}'),
]


@pytest.mark.parametrize(
    ("kind", "text", "masked"), SAMPLES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(SAMPLES)]
)
def test_each_format_is_masked(kind: str, text: str, masked: str) -> None:
    assert mask(text) == masked
    assert f"[secret:{kind}]" in masked


def test_at_least_twenty_formats_are_covered() -> None:
    assert {kind for kind, _, _ in SAMPLES} == set(KINDS)
    assert len(KINDS) >= 20


@pytest.mark.parametrize(
    "text",
    [
        "max_tokens: 100000",
        "token_count = len(tokens)",
        "password: str",
        "the token is in the vault",
        "use --password-file ./pw",
        "enable_secrets = true",
        "git checkout sk-feature-branch",
        "see https://example.com/a/b@c",
        "sha 0123456789abcdef0123456789abcdef01234567",
        "Authorization: Bearer short",
        "ask-me-anything is a forum",
        "docker run -u 1000:1000 -p 8080:80 nginx",
        "mkdir -p build/out && ssh -p 2222 host",
        "git push -u origin main",
        "mysql -u root -p db",
        "the password is stored in the vault",
        "Password for staging is rotated monthly",
        "secrets.token_hex(32) and the secret-sauce v2",
        "COMMENT '1=wechat 2=apple 3=sms 4=password 0=unknown'",
        "the commit key is 0123456789abcdef0123456789abcdef01234567 ok",
        "Password is required.",
        # The shell's working directory, and a shell's complaint.
        "PWD=/srv/project OLDPWD=/tmp",
        "export PWD=$HOME/src",
        "bash: pwd: command not found",
        "the password is case-sensitive.",
        "the token is valid for 24h and the token is 32 bytes long",
        "the secret is out.",
        "key path src/main/java/com/Acme/Billing/InvoiceHandler1.java",
        "base64 of the image: iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
        # PASS that names no password: a word it ends, a test result, a count, a placeholder.
        "bypass=true BYPASS=enabled compass=north-west PASSED=12",
        "PASS=12 FAIL=0",
        "--- PASS: TestParseConfig (0.00s)",
        "PASS: tests/test_auth.py",
        "first_pass: completed",
        "ADMIN_PASS=\nSMTP_PASS=\nPGPASS=\n",
        'SMTP_PASS=<your-password> DB_PASS=${DB_PASS} REDIS_PASS="${REDIS_PASS}"',
        # KEY that holds a name, a path or an id, not a key.
        "SORT_KEY=created_at PRIMARY_KEY=id SSH_KEY=~/.ssh/id_rsa",
        "partition_key: tenant-2024-01 cache_key: v1-deps",
        "STRIPE_PUBLISHABLE_KEY=pk_live_Ab3dEf6hIj9kLm2nOp",
    ],
)
def test_ordinary_text_is_untouched(text: str) -> None:
    assert mask(text) == text


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        # URL-encoded in a query string, JSON-escaped in a pasted tool output, glued by "_".
        (
            "cb?redirect=https%3A%2F%2Fapi%2F%3Ftoken%3Dghp_" + "a1" * 18 + " please",
            "cb?redirect=https%3A%2F%2Fapi%2F%3Ftoken%3D[secret:github-token] please",
        ),
        (
            '{"vars":"GITHUB_TOKEN\\nghp_' + "a1" * 18 + '\\nAWS\\tAKIAIOSFODNN7EXAMPLE"}',
            '{"vars":"GITHUB_TOKEN\\n[secret:github-token]\\nAWS\\t[secret:aws-access-key]"}',
        ),
        ("\\u0022ghp_" + "a1" * 18, "\\u0022[secret:github-token]"),
        (
            "Use key_sk-" + "abcd1234" * 5 + " for the bot.",
            "Use key_[secret:openai-key] for the bot.",
        ),
    ],
)
def test_a_key_glued_to_an_escape_or_an_encoding_is_masked(text: str, masked: str) -> None:
    assert mask(text) == masked


@pytest.mark.parametrize(
    "text",
    [
        "risk-assessment-and-mitigation-plan-v2",
        "desk-booking-system-for-the-office",
        "the task_sk-x",
    ],
)
def test_a_key_prefix_inside_a_word_is_no_key(text: str) -> None:
    assert mask(text) == text


def test_mask_count_counts_every_secret() -> None:
    text = "a AKIAIOSFODNN7EXAMPLE b ghp_" + A32 + "xyzw c DB_PASSWORD=hunter22"
    assert mask_count(text)[1] == 3


def test_mask_data_masks_values_under_secret_names() -> None:
    data = {"api_key": "plainvalue", "n": 3, "nested": [{"token": "abc"}, "AKIAIOSFODNN7EXAMPLE"]}
    assert mask_data(data) == {
        "api_key": "[secret:assignment]",
        "n": 3,
        "nested": [{"token": "[secret:assignment]"}, "[secret:aws-access-key]"],
    }
    assert mask_data({"max_tokens": "4096"}) == {"max_tokens": "4096"}


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300) | st.sampled_from([t for _, t, _ in SAMPLES]))
def test_masking_is_idempotent(text: str) -> None:
    once = mask(text)
    assert mask(once) == once
