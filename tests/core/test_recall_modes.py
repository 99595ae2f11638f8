"""The broad mode's match rules, hybrid's fusion and the mode in effect, with plain values."""

from __future__ import annotations

import pytest

from memesh.core.recall_modes import (
    SEMANTIC_WEIGHT,
    TURN_RARITY_WEIGHT,
    content_words,
    fill_matches,
    fuse,
    idf,
    passage_of,
    passage_score,
    passage_scores,
    plan_broad,
)
from memesh.core.settings import recall_mode
from memesh.core.terms import query_terms


def words(query: str) -> list[str]:
    return content_words(query_terms(query))


def test_an_english_question_keeps_only_its_content_words() -> None:
    assert words("What martial arts has John done?") == ["martial", "arts", "john", "done"]


@pytest.mark.parametrize(
    ("query", "kept"),
    [
        (
            "Quelle est la base de données que nous avons choisie pour le projet ?",
            ["base", "donnees", "choisie", "projet"],
        ),
        ("Welche Datenbank haben wir für das Projekt gewählt?", ["datenbank", "projekt", "gewahlt"]),
        ("¿Qué base de datos elegimos para el proyecto?", ["base", "datos", "elegimos", "proyecto"]),
        ("Qual banco de dados escolhemos para o projeto?", ["banco", "dados", "escolhemos", "projeto"]),
        ("Quale database abbiamo scelto per il progetto?", ["database", "scelto", "progetto"]),
        ("Welke database hebben we voor het project gekozen?", ["welke", "database", "project", "gekozen"]),
        ("Какую базу данных мы выбрали для проекта?", ["какую", "базу", "данных", "выбрали", "проекта"]),
    ],
)
def test_a_question_in_another_european_language_drops_that_languages_function_words(
    query: str, kept: list[str]
) -> None:
    assert words(query) == kept


def test_a_word_that_is_a_function_word_only_in_another_language_is_kept() -> None:
    # German `die` and Dutch `door` are content words in an English question.
    assert words("Why did the door of the server room die?") == ["door", "server", "room", "die"]


def test_a_chinese_question_drops_its_function_words_and_the_seams_between_two_of_them() -> None:
    # 我们 and 什么 are function words, 们的 the seam of two; a seam between a function word and a content word
    # (的认, 式是, 是什) stays: it is rare in stored text, so it rarely matches anything.
    assert words("我们的认证方式是什么") == ["的认", "认证", "证方", "方式", "式是", "是什"]


def test_a_japanese_question_drops_its_auxiliaries() -> None:
    assert "です" not in words("認証方式は何ですか")
    assert "認証" in words("認証方式は何ですか")


def test_a_question_made_only_of_function_words_still_searches_what_it_says() -> None:
    assert words("what is it") == ["what", "is", "it"]


def test_broad_ors_the_content_words_and_never_tries_all_terms_first() -> None:
    plan = plan_broad(query_terms("which database did we choose for the project"), {}, 10)
    assert plan is not None
    assert plan.first.modes == ("any",)
    assert plan.first.terms == ("database", "choose", "project")
    assert plan.fill is None


def test_the_words_the_noise_guard_drops_only_fill_the_places_left() -> None:
    frequency = {"caroline": 30, "identity": 2}
    plan = plan_broad(query_terms("What is Caroline's identity?"), frequency, 40)
    assert plan is not None
    assert plan.first.terms == ("identity",)
    assert plan.first.dropped == ("caroline",)
    assert plan.fill is not None
    assert plan.fill.terms == ("identity", "caroline")


def test_a_query_with_nothing_searchable_has_no_broad_plan() -> None:
    assert plan_broad(query_terms("???"), {}, 10) is None


def test_fill_matches_keep_the_first_matches_and_add_only_new_ones_up_to_the_limit() -> None:
    assert fill_matches([(1, 5.0)], [(1, 5.1), (2, 0.1), (3, 0.05)], 2) == [(1, 5.0), (2, 0.1)]


def test_fusion_mixes_keyword_and_semantic_shares_seventy_thirty() -> None:
    fused = fuse([(1, 10.0), (2, 5.0), (3, 0.0)], {1: 0.2, 2: 0.9, 3: 0.5})
    scores = {item.id: item.score for item in fused}
    assert scores[1] == pytest.approx(1 - SEMANTIC_WEIGHT)
    assert scores[2] == pytest.approx((1 - SEMANTIC_WEIGHT) * 0.5 + SEMANTIC_WEIGHT)
    assert [item.id for item in fused] == [1, 2, 3]
    assert {item.source for item in fused} == {"both"}


def test_a_keyword_match_without_stored_vectors_keeps_its_keyword_share() -> None:
    fused = fuse([(1, 10.0), (2, 5.0), (3, 1.0)], {1: 0.2, 3: 0.9})
    by_id = {item.id: item for item in fused}
    assert by_id[2].source == "keyword"
    assert by_id[2].score == pytest.approx(4 / 9)


def test_a_memory_only_meaning_found_scores_nothing_on_the_keyword_side() -> None:
    fused = fuse([(1, 3.0)], {1: 0.1, 7: 0.8})
    by_id = {item.id: item for item in fused}
    assert by_id[7].source == "semantic"
    assert by_id[7].score == pytest.approx(SEMANTIC_WEIGHT)
    assert fused[0].id == 1


def test_every_fused_score_stays_above_zero() -> None:
    fused = fuse([(1, 3.0), (2, 1.0)], {1: 0.1, 2: 0.05})
    assert min(item.score for item in fused) > 0


def test_a_passage_is_two_consecutive_observations_and_rare_words_weigh_more() -> None:
    passage = passage_of(["turtles", "years"], {"turtles": 2, "years": 40}, 100)
    turtles, years = idf(2, 100), idf(40, 100)
    assert turtles > years > 0
    apart = ["I have turtles.", "Lunch was fine.", "It has been three years."]
    together = ["How long have you had the turtles?", "Three years now!"]
    assert passage_score(apart, passage) == pytest.approx(turtles)
    assert passage_score(together, passage) == pytest.approx(turtles + years)
    assert passage_score(apart, passage, size=3) == pytest.approx(turtles + years)
    assert passage_score([], passage) == 0.0


def test_a_passage_finds_the_words_by_their_stem_folded_as_the_index_folds() -> None:
    passage = passage_of(["painting"], {}, 10)
    assert passage_score(["I PAINTED a lake"], passage) == pytest.approx(1.0)  # one word weighs 1
    assert passage_score(["the painter's brush"], passage) == 0.0  # porter: painter is not paint
    assert passage_score(["unpainted walls"], passage) == 0.0  # a word must start with the stem
    cafe = passage_of(query_terms("Café menu?"), {"cafe": 1, "menu": 1}, 10)
    assert passage_score(["CAFÉ", "Menu of the day"], cafe) == pytest.approx(2 * idf(1, 10))


def test_a_passage_finds_chinese_bigrams_as_they_are() -> None:
    passage = passage_of(query_terms("認証方式"), {}, 10)  # 認証 証方 方式, each in no memory yet
    one = idf(0, 10)
    assert passage_score(["我們改了認證方式"], passage) == pytest.approx(one)  # traditional 認證: only 方式 is shared
    assert passage_score(["認証方式を変えた"], passage) == pytest.approx(3 * one)


def test_a_word_said_in_many_of_the_candidates_turns_weighs_less_than_one_said_once() -> None:
    # Both words are in one memory of ten (the same rarity among memories), but the kids come up in every turn of
    # the chat, the painting in one turn of the other memory: that turn is the one a question points at.
    passage = passage_of(["kids", "painting"], {"kids": 1, "painting": 1}, 10)
    texts = {1: ["The kids are loud", "kids again", "Were the kids fine?"], 2: ["My painting is done", "Thanks"]}
    among_memories = idf(1, 10)
    scores = passage_scores(texts, passage)
    assert scores[1] == pytest.approx(among_memories + TURN_RARITY_WEIGHT * idf(3, 5))  # 3 of the 5 observations
    assert scores[2] == pytest.approx(among_memories + TURN_RARITY_WEIGHT * idf(1, 5))
    assert scores[2] > scores[1]
    assert passage_score(texts[1], passage) == passage_score(texts[2], passage) == pytest.approx(among_memories)


def test_with_one_query_word_every_passage_that_holds_it_scores_the_same() -> None:
    passage = passage_of(["turtles"], {}, 10)
    scores = passage_scores({1: ["turtles", "turtles again"], 2: ["no pets"], 3: ["my turtles"], 4: []}, passage)
    assert scores[1] == scores[3] > scores[2] == scores[4] == 0.0


def test_fusion_with_a_passage_share() -> None:
    fused = fuse([(1, 10.0), (2, 8.0), (3, 0.0)], {}, {1: 0.0, 2: 3.0, 3: 1.5}, semantic_weight=0.0, passage_weight=0.3)
    scores = {item.id: item.score for item in fused}
    assert scores[1] == pytest.approx(0.7)
    assert scores[2] == pytest.approx(0.7 * 0.8 + 0.3)
    assert scores[3] == pytest.approx(0.3 * 0.5)
    assert [item.id for item in fused] == [2, 1, 3]
    assert {item.source for item in fused} == {"keyword"}
    with_meaning = fuse([(1, 10.0), (2, 5.0)], {1: 0.1, 2: 0.9}, {1: 1.0, 2: 0.0}, passage_weight=0.15)
    assert {item.id: item.score for item in with_meaning} == pytest.approx({1: 0.55 + 0.15, 2: 0.3})


def no_extra_missing() -> str | None:
    return None


def test_the_environment_wins_over_config_json() -> None:
    mode = recall_mode({"recallMode": "broad"}, "hybrid", no_extra_missing)
    assert (mode.value, mode.row) == ("hybrid", "hybrid (env MEMESH_RECALL_MODE)")


def test_config_json_applies_when_the_environment_is_silent() -> None:
    mode = recall_mode({"recallMode": "broad"}, None, no_extra_missing)
    assert (mode.value, mode.row) == ("broad", "broad (config.json)")


def test_the_default_is_fts() -> None:
    mode = recall_mode({}, None, no_extra_missing)
    assert (mode.value, mode.row) == ("fts", "fts (default)")


@pytest.mark.parametrize(
    ("stored", "env", "where"), [({}, "semantic", "env MEMESH_RECALL_MODE"), ({"recallMode": 3}, None, "config.json")]
)
def test_an_invalid_mode_falls_back_to_fts_and_says_so(stored: dict[str, object], env: str | None, where: str) -> None:
    mode = recall_mode(stored, env, no_extra_missing)
    assert mode.value == "fts"
    assert mode.row.startswith(f"fts (default; the value in {where} is invalid: ")


def test_hybrid_without_the_semantic_extra_answers_as_broad_and_says_why() -> None:
    mode = recall_mode({"recallMode": "hybrid"}, None, lambda: "the semantic extra is not installed")
    assert (mode.value, mode.requested) == ("broad", "hybrid")
    assert "the semantic extra is not installed" in mode.row


def test_whether_the_extra_is_there_is_asked_only_for_hybrid() -> None:
    def refuse() -> str | None:
        raise AssertionError("asked")

    assert recall_mode({"recallMode": "broad"}, None, refuse).value == "broad"
