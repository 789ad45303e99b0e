"""E-mail about waiting suggestions, delivered to a real SMTP server and read back (SPEC W-7, J-1, P-5).

The digest (off / daily / weekly), the one notice three days before suggestions expire, the unsubscribe link
without login (and RFC 8058's one-click POST), no fact or suggestion content in any message, each window once.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client

from apps.common import clock
from apps.consent import tasks
from apps.consent.models import NoticeSent, NoticeSettings, Proposal
from apps.consent.services import (
    connection_revoke,
    notice_settings_save,
    notices_send_digests,
    notices_send_expiry,
    proposal_ignore,
    proposal_submit,
)
from apps.consent.services.imports import memories_import
from tests.consent.factories import make_application, make_connection, make_fact, share
from tests.consent.smtp import body, serving
from tests.consent.test_pages_support import compiled_catalogs  # noqa: F401 (fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("compiled_catalogs")]

# Words that are in the suggestions and the facts, and must never be in a message.
CONTENT = ["Pottery class", "Thursday evenings at the studio", "she signed up last week",
           "Home city", "Hangzhou", "Drinks oolong"]


@pytest.fixture
def smtp_inbox(settings):
    with serving(settings) as inbox:
        yield inbox


def suggest(connection, label, value="Thursday evenings at the studio", evidence="she signed up last week"):
    return proposal_submit(connection=connection, arguments={
        "op": "add", "category": "habits", "label": label, "value": value, "evidence": evidence})


@pytest.fixture
def person(user):
    user.email = "alice@example.com"
    user.save(update_fields=["email"])
    return user


@pytest.fixture
def assistants(person, frozen_clock):
    """Two assistants with suggestions waiting (3 and 1), a fact shared with one, and decided ones not counted."""
    chatgpt = make_connection(person, application=make_application("ChatGPT"))
    claude = make_connection(person, application=make_application("Claude"))
    share(chatgpt, make_fact(person, category="basic", label="Home city", value="Hangzhou"))
    for number in range(3):
        suggest(chatgpt, f"Pottery class {number}")
    suggest(claude, "Drinks oolong", value="Drinks oolong every morning")
    proposal_ignore(proposal=suggest(claude, "Pottery class ignored"), user=person)
    return chatgpt, claude


def choose(user, digest, *, expiry_notice=True, language="en"):
    notice_settings_save(user=user, digest=digest, expiry_notice=expiry_notice, email=user.email, language=language)


def no_content(message):
    text = str(message)  # headers and every part, as sent
    for word in CONTENT:
        assert word not in text and word.lower() not in text.lower(), word


def unsubscribe_link(message) -> str:
    found = re.findall(r"http://127\.0\.0\.1:8787(/notices/unsubscribe/[^/\s]+/)", body(message))
    assert len(found) == 1, body(message)  # one unsubscribe link per message
    header = str(message["List-Unsubscribe"]).strip()  # a long header may be folded onto its own line
    assert header == f"<http://127.0.0.1:8787{found[0]}>"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"  # RFC 8058
    return found[0]


# SPEC W-7: the daily digest says how many wait and from which assistants, with a link — and nothing else.
def test_daily_digest_is_delivered_with_counts_names_and_links_only(person, assistants, smtp_inbox):
    choose(person, "daily")
    run = notices_send_digests()
    assert (run.sent, run.failed) == (1, 0)
    (message,) = smtp_inbox.messages
    assert smtp_inbox.recipients == [["alice@example.com"]]
    assert message["Subject"] == "4 suggestions are waiting for you"
    text = body(message)
    assert "- ChatGPT: 3" in text and "- Claude: 1" in text
    assert "http://127.0.0.1:8787/me/assistants/" in text
    assert (clock.now() + timedelta(days=30)).date().isoformat() in text  # when the first one expires
    assert "daily digest" in text
    assert message["Auto-Submitted"] == "auto-generated"
    no_content(message)
    unsubscribe_link(message)


# SPEC W-7: never twice for the same window — a second run, or a restarted worker, sends nothing.
def test_a_digest_window_is_sent_once(person, assistants, smtp_inbox):
    choose(person, "daily")
    assert tasks.notices_digest.apply().get() == {"sent": 1, "already": 0, "failed": 0}
    assert tasks.notices_digest.apply().get() == {"sent": 0, "already": 1, "failed": 0}
    clock.advance(timedelta(hours=14))  # still the same day (UTC)
    assert notices_send_digests().sent == 0
    assert len(smtp_inbox.messages) == 1
    assert list(NoticeSent.objects.values_list("kind", "window")) == [("digest", "2026-06-01")]
    clock.advance(timedelta(hours=12))  # the next day: the next window
    assert notices_send_digests().sent == 1
    assert len(smtp_inbox.messages) == 2


# SPEC W-7: weekly is once per ISO week, whatever day the runs come.
def test_weekly_digest_once_a_week(person, assistants, smtp_inbox):
    choose(person, "weekly")
    sent = []
    for _day in range(14):  # 2026-06-01 is a Monday: two weeks of daily runs
        sent.append(notices_send_digests().sent)
        clock.advance(timedelta(days=1))
    assert sent == [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
    assert "weekly digest" in body(smtp_inbox.messages[0])
    assert sorted(NoticeSent.objects.values_list("window", flat=True)) == ["2026-W23", "2026-W24"]


# SPEC W-7: off by default; no address, nothing waiting, or only revoked or expired suggestions: no digest.
def test_no_digest_when_off_or_nothing_waits(person, assistants, smtp_inbox):
    chatgpt, claude = assistants
    assert notices_send_digests().sent == 0  # the default is off
    choose(person, "daily")
    connection_revoke(connection=chatgpt)
    Proposal.objects.filter(connection=claude).update(expires_at=clock.now())  # expired, not yet swept
    assert notices_send_digests().sent == 0
    assert smtp_inbox.messages == []
    claude_new = suggest(claude, "Pottery class again")
    person.email = ""
    person.save(update_fields=["email"])
    assert notices_send_digests().sent == 0
    assert smtp_inbox.messages == [] and claude_new.status == "pending"


# SPEC W-7, W-4: the message is in the language the person saved their choice in.
def test_digest_in_chinese(person, assistants, smtp_inbox):
    choose(person, "daily", language="zh-hans")
    notices_send_digests()
    (message,) = smtp_inbox.messages
    assert message["Subject"] == "有 4 条建议在等你处理"
    assert "- ChatGPT: 3" in body(message) and "停止这些邮件" in body(message)
    assert message["Content-Language"] == "zh-hans"
    no_content(message)


# SPEC W-7: the unsubscribe link works without login, changes nothing on GET, and stops every further message.
def test_unsubscribe_link_without_login_stops_all_mail(person, assistants, smtp_inbox):
    choose(person, "daily")
    notices_send_digests()
    link = unsubscribe_link(smtp_inbox.messages[0])
    browser = Client(enforce_csrf_checks=True)  # nobody signed in, no CSRF cookie: as from a mail client
    page = browser.get(link, headers={"accept-language": "en"})
    assert page.status_code == 200 and "Stop these e-mails" in page.content.decode()
    assert "no-store" in page["Cache-Control"]
    assert NoticeSettings.objects.get(user=person).digest == "daily"  # a link checker's GET unsubscribes nobody
    done = browser.post(link, headers={"accept-language": "en"})
    assert done.status_code == 200 and "no more e-mail" in done.content.decode()
    chosen = NoticeSettings.objects.get(user=person)
    assert (chosen.digest, chosen.expiry_notice) == ("off", False)

    smtp_inbox.clear()
    clock.advance(timedelta(days=28))  # the next day's digest and the notice before expiry are both due
    assert notices_send_digests().sent == 0 and notices_send_expiry().sent == 0
    assert smtp_inbox.messages == []


# SPEC W-7: RFC 8058 — the mail client POSTs "List-Unsubscribe=One-Click" to the header's address.
def test_one_click_unsubscribe_post(person, assistants, smtp_inbox):
    choose(person, "weekly")
    notices_send_digests()
    address = str(smtp_inbox.messages[0]["List-Unsubscribe"]).strip().strip("<>").removeprefix("http://127.0.0.1:8787")
    response = Client(enforce_csrf_checks=True).post(
        address, data="List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200
    assert NoticeSettings.objects.get(user=person).digest == "off"


# SPEC W-7: a link not made here, or altered, does nothing.
def test_a_forged_unsubscribe_link_does_nothing(person, other_user, assistants, smtp_inbox):
    from django.core import signing

    choose(person, "daily")
    notices_send_digests()
    link = unsubscribe_link(smtp_inbox.messages[0])
    token = link.split("/")[-2]
    client = Client()
    forged = signing.dumps(other_user.pk, salt="some.other.salt")
    for bad in (token[:-2] + ("aa" if not token.endswith("aa") else "bb"), forged, "1", "nothing"):
        assert client.post(f"/notices/unsubscribe/{bad}/").status_code == 404
        assert client.get(f"/notices/unsubscribe/{bad}/").status_code == 404
    assert NoticeSettings.objects.get(user=person).digest == "daily"
    assert not NoticeSettings.objects.filter(user=other_user).exists()


# SPEC W-7, P-5: one notice three days before suggestions expire, naming counts and assistants only; sent once.
def test_expiry_notice_three_days_before_once(person, assistants, smtp_inbox):
    chatgpt, claude = assistants
    choose(person, "off", language="en")  # no digest; the notice before expiry is on unless turned off
    clock.advance(timedelta(days=1))
    later = suggest(claude, "Pottery class tomorrow")  # expires a day after the others

    clock.advance(timedelta(days=25, hours=-1))  # 4 days before the first ones expire: too early
    assert notices_send_expiry().sent == 0
    clock.advance(timedelta(days=1, hours=2))  # 3 days and 23 hours before: the day of the notice
    assert tasks.notices_expiry.apply().get() == {"sent": 1, "already": 0, "failed": 0}
    (message,) = smtp_inbox.messages
    assert message["Subject"] == "4 suggestions expire in a few days"
    text = body(message)
    assert "4 expire on 2026-07-01 (UTC)" in text and "- ChatGPT: 3" in text and "- Claude: 1" in text
    no_content(message)
    unsubscribe_link(message)

    for _run in range(3):  # the hourly runs of that day, and a restarted worker
        clock.advance(timedelta(hours=1))
        assert notices_send_expiry().sent == 0
    clock.advance(timedelta(hours=21))  # the next day: only the later suggestion is new
    assert notices_send_expiry().sent == 1
    text = body(smtp_inbox.messages[1])
    assert "1 expires on 2026-07-02 (UTC)" in text and "- Claude: 1" in text and "ChatGPT" not in text
    assert notices_send_expiry().sent == 0
    clock.advance(timedelta(days=1))
    proposal_ignore(proposal=later, user=person)
    assert notices_send_expiry().sent == 0 and len(smtp_inbox.messages) == 2
    assert sorted(NoticeSent.objects.filter(kind="expiry").values_list("window", flat=True)) == [
        "2026-07-01", "2026-07-02"]


# SPEC W-7, J-2: a day the worker was down is made up for by the next run, in one message. A person who never
# chose anything gets it (the default) in the product's default language, Simplified Chinese (SPEC W-4).
def test_expiry_notice_catches_up_in_one_message(person, assistants, smtp_inbox):
    chatgpt, claude = assistants
    clock.advance(timedelta(days=1))
    suggest(claude, "Pottery class tomorrow")
    clock.advance(timedelta(days=28))  # the first notice day was missed
    assert notices_send_expiry().sent == 1
    (message,) = smtp_inbox.messages
    assert message["Subject"] == "有 5 条建议将在几天后过期"
    assert "4 条将于 2026-07-01（UTC）过期" in body(message) and "1 条将于 2026-07-02（UTC）过期" in body(message)
    no_content(message)
    assert notices_send_expiry().sent == 0


# SPEC W-7: the person can turn the notice before expiry off.
def test_expiry_notice_can_be_turned_off(person, assistants, smtp_inbox):
    choose(person, "off", expiry_notice=False)
    clock.advance(timedelta(days=27, hours=1))
    assert notices_send_expiry().sent == 0 and smtp_inbox.messages == []


# SPEC W-7: a message the server refuses leaves its window open; the next run sends it, once.
def test_refused_message_is_sent_by_the_next_run(person, assistants, smtp_inbox):
    choose(person, "daily")
    smtp_inbox.refuse = True
    assert (notices_send_digests().failed, NoticeSent.objects.count()) == (1, 0)
    smtp_inbox.refuse = False
    assert notices_send_digests().sent == 1
    assert notices_send_digests().sent == 0
    assert len(smtp_inbox.messages) == 1


# SPEC W-7: no server listening at all is a failure of that message, not of the run.
def test_unreachable_server_fails_the_message_not_the_run(person, assistants, settings):
    from tests.consent.smtp import free_port

    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", free_port(), 2
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    choose(person, "daily")
    run = notices_send_digests()
    assert (run.sent, run.failed) == (0, 1)
    assert not NoticeSent.objects.exists()


# SPEC W-7: two runs at the same moment (two beats, or a task redelivered while the first still runs) send one
# message: both find nothing sent, both write the message, and the unique record lets one of them send it.
@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_runs_send_one_message(person, assistants, smtp_inbox, monkeypatch):
    import threading

    from django.db import connection as db_connection

    from apps.consent import notice_mail

    choose(person, "daily")
    barrier = threading.Barrier(2, timeout=10)
    written = notice_mail.digest_message

    def in_step(**kwargs):  # both runs have checked what was sent, and found nothing, before either sends
        barrier.wait()
        return written(**kwargs)

    monkeypatch.setattr(notice_mail, "digest_message", in_step)
    runs = []

    def run():
        try:
            runs.append(notices_send_digests())
        finally:
            db_connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted((r.sent, r.already) for r in runs) == [(0, 1), (1, 0)]
    assert len(smtp_inbox.messages) == 1
    assert NoticeSent.objects.count() == 1


# SPEC W-7: an assistant's self-chosen name cannot add lines to the message (a link of its own, say).
def test_an_assistant_name_stays_on_one_line(person, frozen_clock, smtp_inbox):
    odd = make_connection(person, application=make_application("Helper\n\nYour account is locked: http://x.test\r"))
    suggest(odd, "Pottery class")
    choose(person, "daily")
    notices_send_digests()
    text = body(smtp_inbox.messages[0])
    assert "- Helper Your account is locked: http://x.test: 1" in text
    assert not any(line.startswith("Your account") for line in text.splitlines())


# SPEC W-7: the records of sent windows are kept a month, then forgotten: they can stop nothing any more.
def test_old_records_are_forgotten(person, assistants, smtp_inbox):
    choose(person, "daily")
    notices_send_digests()
    clock.advance(timedelta(days=29))
    notices_send_digests()
    assert NoticeSent.objects.count() == 2
    clock.advance(timedelta(days=2))
    Proposal.objects.update(expires_at=clock.now() + timedelta(days=10))  # still waiting
    notices_send_digests()
    assert sorted(NoticeSent.objects.values_list("window", flat=True)) == ["2026-06-30", "2026-07-02"]


# SPEC W-7, P-10: suggestions the person imported wait and expire like an assistant's, so they are counted and
# told about too, in the person's language, under words of their own in place of an assistant's name.
@pytest.mark.parametrize(("language", "words"), [("en", "Imported memories"), ("zh-hans", "导入的记忆")])
def test_imported_suggestions_are_in_the_header_and_the_digest(person, assistants, smtp_inbox, language, words):
    memories_import(user=person, data=b"- Plays the cello\n- Keeps bees on the roof\n")
    client = Client()
    client.force_login(person)
    page = client.get("/me/facts/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert re.search(r"\b6 suggestions waiting", page), "the header counts the two imported suggestions"
    choose(person, "daily", language=language)
    notices_send_digests()
    (message,) = smtp_inbox.messages
    text = body(message)
    assert f"- {words}: 2" in text and "- ChatGPT: 3" in text
    no_content(message)
    assert "cello" not in text and "bees" not in text


# SPEC W-7: the notice before expiry covers imported suggestions as well.
def test_imported_suggestions_get_the_expiry_notice(person, smtp_inbox, frozen_clock):
    memories_import(user=person, data=b"- Plays the cello\n")
    choose(person, "off")
    clock.advance(timedelta(days=27, hours=1))
    notices_send_expiry()
    (message,) = smtp_inbox.messages
    assert "- Imported memories: 1" in body(message)
    assert "cello" not in body(message)
