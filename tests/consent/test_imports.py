"""Bringing memories in (SPEC P-10): what ChatGPT, Claude and Gemini list becomes imported suggestions.

The samples under ``memories/`` are written after the public descriptions of those assistants' memory
features: ChatGPT's answer to "what do you remember about me" (a numbered list under bold headings, in
"Lives in …" phrasing), Claude's memory export ("## Work context", "[date] - User …"), Gemini's saved info
(first-person statements, and a JSON export), in English and Chinese.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection as db_connection
from django.test.utils import CaptureQueriesContext

from apps.consent.memory_lists import ImportRefused
from apps.consent.models import Proposal
from apps.consent.services import ProposalError, proposal_confirm
from apps.consent.services.imports import memories_import
from apps.memory.models import Fact
from tests.consent.factories import make_fact
from tests.consent.test_pages_support import client_for, compiled_catalogs, visible_text  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("compiled_catalogs")]

SAMPLES = Path(__file__).parent / "memories"


def sample(name: str) -> bytes:
    return (SAMPLES / name).read_bytes()


def imported(user):
    return {(p.category, p.label, p.value): p for p in Proposal.objects.filter(owner=user, source="import")}


# --- Real-shaped samples, both languages ---------------------------------------------------------------

@pytest.mark.parametrize(("name", "expected"), [
    ("chatgpt_en.md", {("basic", "City", "Beijing"),
                       ("work_study", "Job", "Product manager at a fintech startup called Finch"),
                       ("basic", "Pet", "A golden retriever named Mochi"), ("preferences", "Diet", "Vegetarian"),
                       ("habits", "Runs 5 km every morning before work", "Runs 5 km every morning before work."),
                       ("relationships", "Calls her parents in Hangzhou every…",
                        "Calls her parents in Hangzhou every Sunday evening.")}),
    ("chatgpt_zh.md", {("basic", "常住城市", "北京"), ("basic", "宠物", "一只金毛，叫“麻薯”"),
                       ("habits", "每天早上跑步五公里", "每天早上跑步五公里。"),
                       ("relationships", "妈妈在杭州的社区合唱团唱歌", "妈妈在杭州的社区合唱团唱歌。")}),
    ("claude_en.md", {("basic", "City", "Shanghai"), ("basic", "Birthday", "April 18"),
                      ("work_study", "Job", "Product manager at Finch, a fintech startup in Shanghai")}),
    ("claude_zh.md", {("basic", "常住城市", "上海"), ("basic", "生日", "四月十八日"),
                      ("work_study", "职业", "Finch 公司的产品经理"),
                      ("preferences", "回答时先说结论，再说原因", "回答时先说结论，再说原因。")}),
    ("gemini_en.txt", {("preferences", "Diet", "Vegetarian"), ("basic", "City", "Shanghai"),
                       ("basic", "Pet", "A golden retriever called Mochi")}),
    ("gemini_saved_info.json", {("basic", "City", "Shanghai"), ("preferences", "Diet", "Vegetarian")}),
])
def test_each_sample_becomes_suggestions(user, name, expected):
    result = memories_import(user=user, data=sample(name))
    found = imported(user)
    assert expected <= set(found), sorted(found)
    assert result.added == len(found) and not result.refused
    for proposal in found.values():  # SPEC P-10: never confirmed, P-5: expiring, owned by the person alone
        assert (proposal.status, proposal.op, proposal.connection_id, proposal.owner_id) == ("pending", "add",
                                                                                               None, user.pk)
        assert proposal.expires_at == proposal.created_at + timedelta(days=30)
    assert not Fact.objects.filter(owner=user).exists()


def test_the_chatter_around_the_list_is_not_a_memory(user):
    memories_import(user=user, data=sample("chatgpt_en.md") + b"\n" + sample("chatgpt_zh.md"))
    words = " ".join(p.value for p in imported(user).values())
    for chatter in ("remember", "Let me know", "以下是", "随时告诉我"):
        assert chatter not in words


def test_dates_are_kept_in_the_note_not_the_value(user):
    memories_import(user=user, data=sample("claude_en.md"))
    city = imported(user)[("basic", "City", "Shanghai")]
    assert "2025-01-20" in city.evidence and "2025" not in city.value


# --- One fact per slot (P-9) against the person's facts and within the import -----------------------

def test_an_item_for_a_slot_already_filled_is_a_change_and_a_restatement_is_known(user):
    city = make_fact(user, category="basic", label="City", value="Shanghai")
    pet = make_fact(user, category="basic", label="Pet", value="Golden retriever Mochi")
    result = memories_import(user=user, data=sample("chatgpt_en.md"))
    found = imported(user)
    assert (found[("basic", "City", "Beijing")].slot, found[("basic", "City", "Beijing")].slot_fact_id) == (
        "change", city.pk)
    assert (found[("basic", "Pet", "A golden retriever named Mochi")].slot,
            found[("basic", "Pet", "A golden retriever named Mochi")].slot_fact_id) == ("known", pet.pk)
    assert (result.changes, result.known) == (1, 1)


def test_repeats_within_one_paste_collapse(user):
    text = ("- Lives in Shanghai\n- User lives in Shanghai.\n- 用户住在上海\n- I live in shanghai\n"
            "- Has a cat named Luna\n")
    result = memories_import(user=user, data=text.encode())
    assert result.duplicates == 2 and result.added == 3  # "上海" is another word without the meaning model
    assert [p.value for p in Proposal.objects.filter(owner=user, label="City")] == ["Shanghai"]


def test_importing_the_same_list_again_adds_nothing(user):
    memories_import(user=user, data=sample("gemini_en.txt"))
    again = memories_import(user=user, data=sample("gemini_en.txt"))
    assert (again.added, again.already) == (0, 5)
    assert Proposal.objects.filter(owner=user).count() == 5


def test_an_expired_import_may_come_again(user, frozen_clock):
    memories_import(user=user, data=b"- Lives in Shanghai")
    frozen_clock.advance(timedelta(days=31))
    assert memories_import(user=user, data=b"- Lives in Shanghai").added == 1
    assert sorted(Proposal.objects.filter(owner=user).values_list("status", flat=True)) == ["expired", "pending"]


# --- P-2 per item ------------------------------------------------------------------------------------

def test_a_secret_is_refused_and_the_rest_imported(user):
    text = ("- Lives in Shanghai\n- My bank password is Sunflower2024\n"
            "- Github token ghp_a8Kq2LmN4pR7sT9vX1yZ3bC5dE7fG9hJ2kL4\n- 验证码是 482913\n- Prefers tea\n")
    result = memories_import(user=user, data=text.encode())
    assert result.added == 2
    assert [(r.number, r.code) for r in result.refused] == [(2, "secret_detected"), (3, "secret_detected"),
                                                            (4, "secret_detected")]
    stored = " ".join(Proposal.objects.values_list("value", flat=True))
    assert "Sunflower" not in stored and "ghp_" not in stored and "482913" not in stored


def test_a_long_item_is_split_into_sentences(user):
    long = " ".join(f"Sentence number {n} says one more thing about the projects at work." for n in range(10))
    result = memories_import(user=user, data=f"- {long}".encode())
    values = list(Proposal.objects.filter(owner=user).order_by("id").values_list("value", flat=True))
    assert result.split == 1 and len(values) >= 2 and all(len(v) <= 300 for v in values)
    assert " ".join(values) == long


def test_one_sentence_longer_than_a_value_is_refused_with_its_number(user):
    result = memories_import(user=user, data=("- Lives in Shanghai\n- " + "very " * 80 + "long").encode())
    assert result.added == 1 and [(r.number, r.code) for r in result.refused] == [(2, "invalid_argument")]


# --- Bad input: a clear code, nothing written ----------------------------------------------------------

@pytest.mark.parametrize(("data", "code"), [
    (b"", "import_empty"), (b"  \n\t\n ", "import_empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00" + bytes(range(256)) * 4, "import_not_text"),
    (b"PK\x03\x04\x14\x00\x06\x00" + bytes(200), "import_not_text"),
    (b"\xff\xd8\xff\xe0 not utf-8 \xc3\x28", "import_not_text"),
    (b"<!DOCTYPE html><html><body><ul><li>Lives in Shanghai</li></ul></body></html>", "import_html"),
    (b"<div><p>Lives in Shanghai</p><p>Has a dog</p></div>", "import_html"),
    (b"x" * 10_000_000, "import_too_large"),
    (b'{"memories": [', "import_bad_json"), (b'{"name": "Lin"}', "import_bad_json"),
    (b"Here's what I remember about you:\n\nLet me know if you'd like me to update anything.", "import_no_items"),
    ("\n".join(f"- Memory number {n}" for n in range(1001)).encode(), "import_too_many"),
])
def test_bad_input_is_refused_whole(user, data, code):
    with pytest.raises(ImportRefused) as refused:
        memories_import(user=user, data=data)
    assert refused.value.code == code
    assert not Proposal.objects.exists()


def test_bad_input_on_the_page_gets_a_clear_message_and_nothing(user):
    client = client_for(user)
    for fields, status, words in [
        ({"text": ""}, 400, "nothing to import"),
        ({"text": "<html><body><p>a</p><p>b</p></body></html>"}, 400, "source of a web page"),
        ({"text": "Lives in \x00 Shanghai"}, 400, "not text"),
    ]:
        response = client.post("/me/facts/import/", fields)
        assert response.status_code == status and words in visible_text(response.content.decode())
        assert "Nothing was imported." in response.content.decode()
    assert not Proposal.objects.exists()


def test_an_uploaded_binary_file_is_refused(user):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("photo.json", b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(range(256)), "application/json")
    response = client_for(user).post("/me/facts/import/", {"file": upload})
    assert response.status_code == 400 and "not text" in response.content.decode()
    assert not Proposal.objects.exists()


def test_a_ten_megabyte_upload_and_paste_are_refused_before_anything(user):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client = client_for(user)
    upload = SimpleUploadedFile("memories.txt", b"- Lives in Shanghai\n" * 520_000, "text/plain")
    response = client.post("/me/facts/import/", {"file": upload})
    assert response.status_code == 413 and "too large" in response.content.decode()
    response = client.post("/me/facts/import/", {"text": "- Lives in Shanghai\n" * 520_000})
    assert response.status_code == 413 and "too large" in response.content.decode()
    assert not Proposal.objects.exists()


def test_the_import_form_needs_its_csrf_token(user):
    from django.test import Client

    client = Client(enforce_csrf_checks=True, HTTP_HOST="127.0.0.1")
    client.force_login(user)
    assert client.post("/me/facts/import/", {"text": "- Lives in Shanghai"}).status_code == 403
    assert not Proposal.objects.exists()


# --- At real size ----------------------------------------------------------------------------------

def test_five_hundred_items_in_one_transaction_and_bounded_sql(user):
    for number in range(40):
        make_fact(user, category="preferences", label=f"Preference {number}", value=f"value {number}")
    text = "\n".join(f"{n + 1}. Prefers option {n} for task {n}" for n in range(500))
    with CaptureQueriesContext(db_connection) as queries:
        result = memories_import(user=user, data=text.encode())
    assert result.added == 500
    # Reads and the expiry sweep: a handful; the rows: one INSERT per batch the database takes at once (one
    # on PostgreSQL, a few on SQLite with its limit of bound values), whatever the person's facts.
    inserts = [q for q in queries if q["sql"].startswith("INSERT")]
    assert len(queries) - len(inserts) <= 8 and len(inserts) <= 10, [q["sql"][:60] for q in queries]


def test_a_refusal_after_reading_leaves_nothing_half_imported(user, monkeypatch):
    # The write is one statement in one transaction: a failure while storing leaves no row behind.
    from apps.consent.services import imports

    real = imports.Proposal.objects.bulk_create

    def bulk_create_then_fail(rows, **kwargs):
        real(rows[:3], **kwargs)
        raise imports.IntegrityError("staged")

    monkeypatch.setattr(imports.Proposal.objects, "bulk_create", bulk_create_then_fail)
    with pytest.raises(ImportRefused):
        memories_import(user=user, data=sample("chatgpt_en.md"))
    assert not Proposal.objects.exists()


# --- The pages -------------------------------------------------------------------------------------

def test_personal_info_links_to_the_import(user):
    body = client_for(user).get("/me/facts/").content.decode()
    assert 'href="/me/facts/import/"' in body


def test_pasting_on_the_page_lists_the_suggestions_with_their_actions(user):
    make_fact(user, category="basic", label="City", value="Shanghai")
    response = client_for(user).post("/me/facts/import/", {"text": sample("chatgpt_en.md").decode()}, follow=True)
    body = response.content.decode()
    assert response.status_code == 200 and "suggestions are waiting for you below" in body
    change = Proposal.objects.get(owner=user, label="City")
    card = body[body.index(f'id="proposal-{change.pk}"'):]
    card = card[:card.index("</article>")]
    assert "Shanghai" in card and "Beijing" in card and 'value="replace"' in card and 'value="keep"' in card
    assert "share" not in card.split("<details")[0].lower().replace("shared", "")  # no assistant to share with


def test_the_page_in_chinese(user):
    memories_import(user=user, data=sample("chatgpt_zh.md"))
    body = client_for(user, "zh-hans").get("/me/facts/import/").content.decode()
    assert "带入你的记忆" in body and "北京" in body


def test_an_uploaded_json_export(user):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("saved_info.json", sample("gemini_saved_info.json"), "application/json")
    client_for(user).post("/me/facts/import/", {"file": upload})
    assert Proposal.objects.filter(owner=user, source="import").count() == 4


def test_confirming_and_replacing_an_imported_suggestion(user):
    city = make_fact(user, category="basic", label="City", value="Shanghai")
    memories_import(user=user, data=b"- Lives in Beijing\n- Prefers green tea")
    client = client_for(user)
    change = Proposal.objects.get(owner=user, label="City")
    new = Proposal.objects.get(owner=user, label="Prefers green tea")
    client.post(f"/me/proposals/{change.pk}/confirm/", {"resolution": "replace"})
    response = client.post(f"/me/proposals/{new.pk}/confirm/", follow=True)
    city.refresh_from_db()
    assert (city.value, city.version) == ("Beijing", 2)
    assert Fact.objects.filter(owner=user, label="Prefers green tea").exists()
    assert response.redirect_chain[-1][0].startswith("/me/facts/import/")


def test_bulk_confirm_and_ignore_of_imported_suggestions(user):
    memories_import(user=user, data=sample("gemini_en.txt"))
    ids = list(Proposal.objects.filter(owner=user).order_by("id").values_list("id", flat=True))
    client = client_for(user)
    client.post("/me/facts/import/suggestions/confirm/", {"proposals": ids[:2], "action": "selected"})
    client.post("/me/facts/import/suggestions/ignore/", {"action": "all", "up_to": ids[-1]})
    statuses = list(Proposal.objects.filter(owner=user).order_by("id").values_list("status", flat=True))
    assert statuses == ["confirmed", "confirmed", "ignored", "ignored", "ignored"]
    assert Fact.objects.filter(owner=user).count() == 2


def test_an_imported_suggestion_expires(user, frozen_clock):
    # SPEC P-5.
    memories_import(user=user, data=b"- Lives in Shanghai")
    proposal = Proposal.objects.get(owner=user)
    frozen_clock.advance(timedelta(days=30))
    with pytest.raises(ProposalError) as refused:
        proposal_confirm(proposal=proposal, user=user)
    assert refused.value.code == "proposal_expired"


def test_someone_elses_imports_are_not_reachable(user, other_user):
    memories_import(user=other_user, data=b"- Lives in Shanghai")
    theirs = Proposal.objects.get(owner=other_user)
    client = client_for(user)
    assert client.post(f"/me/proposals/{theirs.pk}/confirm/").status_code == 404
    client.post("/me/facts/import/suggestions/confirm/", {"proposals": [theirs.pk], "action": "selected"})
    assert Proposal.objects.get(pk=theirs.pk).status == "pending"
    assert "Shanghai" not in client.get("/me/facts/import/").content.decode()


def test_the_import_page_costs_the_same_queries_with_more_suggestions(user):
    memories_import(user=user, data=b"\n".join(f"- Prefers option {n}".encode() for n in range(3)))
    client = client_for(user)
    client.get("/me/facts/import/")
    with CaptureQueriesContext(db_connection) as few:
        client.get("/me/facts/import/")
    memories_import(user=user, data=b"\n".join(f"- Likes thing {n}".encode() for n in range(40)))
    with CaptureQueriesContext(db_connection) as many:
        client.get("/me/facts/import/")
    assert len(many) == len(few)


def test_json_shapes(user):
    data = json.dumps([{"label": "City", "value": "Shanghai"}, "I'm vegetarian",
                       {"text": "Runs every morning", "category": "Habits", "date": "2025-01-02"}]).encode()
    memories_import(user=user, data=data)
    assert {(p.category, p.label) for p in Proposal.objects.filter(owner=user)} == {
        ("basic", "City"), ("preferences", "Diet"), ("habits", "Runs every morning")}


def test_imported_suggestions_are_in_the_persons_download(user):
    memories_import(user=user, data=b"- Lives in Shanghai")
    data = json.loads(client_for(user).get("/me/export/").content)
    assert [(s["label"], s["value"], s["status"]) for s in data["imported_suggestions"]] == [
        ("City", "Shanghai", "pending")]


def test_prose_keeps_a_memory_that_mentions_remembering(user):
    text = ("Here's what I remember about you:\n"
            "You live in Shanghai.\nYou remember names badly and prefer name tags at events.\n"
            "Let me know if anything changed.")
    memories_import(user=user, data=text.encode())
    values = {p.value for p in Proposal.objects.filter(owner=user)}
    assert values == {"Shanghai", "Remember names badly and prefer name tags at events."}


def test_the_meaning_model_files_what_no_word_tells(user, meaning):
    # SPEC P-10, D-2: no heading, slot or keyword says where these go; the model's nearest category does.
    memories_import(user=user, data=b"- Sleeps badly before deadlines\n- Mentors two junior designers\n- Zxqv blorp")
    found = {p.label: p.category for p in Proposal.objects.filter(owner=user)}
    assert found == {"Sleeps badly before deadlines": "health", "Mentors two junior designers": "work_study",
                     "Zxqv blorp": "uncategorized"}  # gibberish is near nothing
