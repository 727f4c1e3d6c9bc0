"""Proof-number search (`tictactoe.search.pn`) against the α-β solver on random positions,
on known values, on Patashnik's Qubic dictionary, and under limits and bad input."""

from __future__ import annotations

import _thread
import random
import signal
import threading
from functools import cache

import numpy as np
import pytest

from tictactoe.core import IllegalMoveError, Position, Side, Variant
from tictactoe.proof.patashnik import Dictionary, find_dictionary, load_dictionary
from tictactoe.proof.threats import board_of, cells_of, threat_cells
from tictactoe.proof.threats import scan as readable_scan
from tictactoe.search import solve_value
from tictactoe.search.pn import PnSearch, game_value, prove
from tictactoe.search.pn.tables import tables
from tictactoe.search.pn.tss import scan, survey, threat_move


def random_position(rng: random.Random, variant: str, marks: int) -> Position | None:
    """A position after `marks` random moves, or None if the game ended on the way."""
    position = Position(variant)
    for _ in range(marks):
        position.push(rng.choice(position.legal_moves()))
        if position.is_game_over():
            return None
    return position


@cache
def search_for(variant: str) -> PnSearch:
    return PnSearch(variant, table_mb=16)


@pytest.mark.parametrize(("variant", "count", "low", "high", "seed"), [
    ("4x4k4", 40, 5, 10, 1),
    ("5x5k4", 40, 4, 12, 2),
    ("6x5k4", 30, 6, 14, 3),
    ("4x4x4", 12, 10, 16, 4),
])
def test_pn_value_agrees_with_alpha_beta(variant: str, count: int, low: int, high: int,
                                         seed: int) -> None:
    rng = random.Random(seed)
    search = search_for(variant)
    compared = 0
    values: set[str] = set()
    attempts = 0
    while compared < count:
        attempts += 1
        assert attempts < 20 * count
        position = random_position(rng, variant, rng.randint(low, high))
        if position is None:
            continue
        reference = solve_value(position, nodes=300_000)
        if not reference.proven:
            continue  # too hard for a quick α-β answer: not a comparison
        winner = reference.winner
        expected = "draw" if winner is None else winner.symbol
        found = search.value(position)
        assert found.value == expected, position.to_string()
        compared += 1
        values.add(expected)
    assert len(values) >= 2  # the sample is not all one value


@pytest.mark.parametrize("variant", ["3x3", "4x3", "4x4k3", "4x4k4", "5x4k4", "5x5k4"])
def test_empty_board_values_agree_with_alpha_beta(variant: str) -> None:
    reference = solve_value(Position(variant))
    winner = reference.winner
    assert reference.proven
    assert game_value(variant, table_mb=8).value == ("draw" if winner is None
                                                     else winner.symbol)


def test_the_value_asks_one_question_for_a_win_and_two_otherwise() -> None:
    held = game_value("x2/1o1/3 x", table_mb=1)  # a corner answered by the centre
    assert held.value == "draw" and len(held.questions) == 2
    assert [q.attacker for q in held.questions] == ["x", "o"]
    lost = game_value("xx1/oo1/x2 o", table_mb=1)
    assert lost.value == "o" and len(lost.questions) == 1
    # at the empty board the first player cannot lose (strategy stealing): one question
    empty = game_value("3x3", table_mb=1)
    assert empty.value == "draw" and [q.attacker for q in empty.questions] == ["x"]


def test_the_attacker_can_be_the_side_not_to_move() -> None:
    # O to move but X has two threats: X wins whatever O does
    position = "xx1/1x1/o1o o"
    assert prove(position, attacker="o", table_mb=1).outcome == "win"
    assert prove("x2/1o1/2x o", attacker="x", table_mb=1).outcome == "no-win"  # a draw
    assert prove("x1x/1o1/o1x o", attacker=Side.X, table_mb=1).outcome == "win"


def test_a_node_limit_stops_the_search_unproven() -> None:
    result = prove("7x7k5", nodes=50, table_mb=4)
    assert result.outcome == "unknown" and not result.proven
    assert 0 < result.root_pn < 1 << 60 and 0 < result.root_dn < 1 << 60
    assert result.nodes <= 51


def test_a_deadline_stops_the_search_and_progress_is_reported() -> None:
    reports: list[tuple[int, int, int, float]] = []
    result = prove("4x4x4", seconds=0.6, table_mb=16,
                   progress=lambda *report: reports.append(report))
    assert result.outcome == "unknown"
    assert 0.5 < result.seconds < 3
    assert reports and reports[-1][0] > 0
    assert all(r[0] <= result.nodes for r in reports)


def test_ctrl_c_stops_the_search_and_is_raised_afterwards() -> None:
    search = PnSearch("4x4x4", table_mb=16)
    search.prove("x3/4/4/3o:4/4/4/4:4/4/4/4:4/4/4/4 x", nodes=10)  # compiled and ready
    timer = threading.Timer(0.5, _thread.interrupt_main)
    # take Ctrl-C as on a terminal even where this run ignores it (a background job does,
    # and then interrupt_main does nothing); the deadline only keeps a failure from hanging
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            search.prove(Position("4x4x4"), seconds=60)
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert search.misc[1 + 8] == 0  # its node limit was dropped to stop the kernel


def test_bad_input_is_refused_clearly() -> None:
    with pytest.raises(IllegalMoveError, match="game is over"):
        prove("xxx/oo1/3 o")
    with pytest.raises(ValueError, match="unknown proof-number search option 'speed'"):
        PnSearch("3x3", speed=2)
    with pytest.raises(ValueError, match="for 3x3, not 4x3"):
        PnSearch("3x3", table_mb=1).prove("4x3")


def test_a_board_s_measured_settings_apply_to_it_alone_and_yield_to_options() -> None:
    from tictactoe.search.pn.dfpn import AND_PN, EVAL_BUDGET

    def settings(search: PnSearch) -> tuple[int, int]:
        return int(search.misc[AND_PN]), int(search.misc[EVAL_BUDGET])

    assert settings(PnSearch("4x4x4", table_mb=1)) == (16, 30)
    assert settings(PnSearch("7x7k5", table_mb=1)) == (4, 200)
    assert settings(PnSearch("4x4x4", table_mb=1, eval_budget=200, and_pn=4)) == (4, 200)


@cache
def dictionary() -> Dictionary:
    path = find_dictionary()
    assert path is not None
    return load_dictionary(path)


def test_patashnik_positions_are_x_wins_and_their_moves_keep_the_win() -> None:
    """A fixed sample of the late positions (plies 12 to 16; the whole dictionary:
    ``scripts/bench_pn.py``)."""
    late = [e for e in dictionary().entries if e.ply >= 12]
    entries = random.Random(7).sample(late, 12)
    search = PnSearch("4x4x4", table_mb=64)
    for entry in entries:
        position = entry.position()
        assert search.prove(position, attacker=Side.X).outcome == "win", entry.line
        after = position.play(entry.move)
        assert search.prove(after, attacker=Side.X).outcome == "win", entry.line


@pytest.mark.slow
def test_every_patashnik_move_keeps_the_win() -> None:
    """The whole dictionary, deepest first in one table (about 45 s): each entry's move is
    proven to keep X's win, then its position an X win, by df-pn with no hint but the
    order."""
    entries = sorted(dictionary().entries, key=lambda e: (-e.ply, e.line))
    search = PnSearch("4x4x4", table_mb=256)
    failed = []
    for entry in entries:
        outcomes = [a.outcome for a in search.prove_move(entry.position(), entry.move)]
        if outcomes != ["win", "win"]:
            failed.append((entry.line, outcomes))
    assert len(entries) == 2_929 and failed == []


@pytest.mark.parametrize(("variant", "outcome"), [
    ("4x4k3", "win"), ("6x5k4", "win"), ("4x4k4", "no-win"), ("3x3", "no-win"),
])
def test_proving_by_replies_agrees_with_one_search(variant: str, outcome: str) -> None:
    parts: list[str] = []
    search = PnSearch(variant, table_mb=8)
    found = search.prove_by_replies(variant, report=lambda text, result: parts.append(text))
    assert found.outcome == outcome == PnSearch(variant, table_mb=8).prove(variant).outcome
    assert parts and all(Position(text).ply == 2 for text in parts)


@pytest.mark.parametrize("name", ["3x3", "5x5k4", "7x7k5", "4x8k4", "4x4x4"])
def test_the_compiled_scan_agrees_with_the_checkers(name: str) -> None:
    """The kernels' one-pass `scan` against the checker's readable one: each
    side's threat cells, and the cells on two or more of the prover's lines two marks short."""
    variant = Variant.parse(name)
    board = board_of(variant)
    lines = np.array(variant.line_masks, dtype=np.uint64)
    full = np.uint64(variant.full_mask)
    rng = random.Random(name)
    seen_twice = 0
    for _ in range(300):
        cells = rng.sample(range(variant.cells), variant.cells)
        n = rng.randint(0, variant.cells // 3)
        mine = sum(1 << c for c in cells[:n])
        theirs = sum(1 << c for c in cells[n:n + rng.randint(max(0, n - 1), n)])
        ours, others, twos = readable_scan(board, mine, theirs)
        p_threat, d_threat, cand, twice = scan(np.uint64(mine), np.uint64(theirs), full, lines)
        assert (int(p_threat), int(d_threat)) == (ours, others)
        empties = [m & ~(mine | theirs) for m in twos]  # two empty cells each
        expected_cand = expected_twice = 0
        for e in empties:
            expected_twice |= expected_cand & e
            expected_cand |= e
        assert (int(cand), int(twice)) == (expected_cand, expected_twice)
        seen_twice += expected_twice != 0
    assert seen_twice > 0


@pytest.mark.parametrize("name", ["5x5k4", "7x7k5", "4x4x4"])
def test_the_one_pass_survey_agrees_with_scan_and_a_count_of_the_lines(name: str) -> None:
    """`survey` (the one pass, without branches, that `scan`, the threat search and the
    evaluations share) gives `scan`'s masks, the open lines, the defender's threat-making
    cells and the prover's lines two marks short, counted line by line."""
    variant = Variant.parse(name)
    lines = np.array(variant.line_masks, dtype=np.uint64)
    full = np.uint64(variant.full_mask)
    rng = random.Random(name)
    seen = {"open": 0, "make": 0, "threat": 0}
    for _ in range(300):
        cells = rng.sample(range(variant.cells), variant.cells)
        n = rng.randint(0, variant.cells // 2)
        mine = sum(1 << c for c in cells[:n])
        theirs = sum(1 << c for c in cells[n:n + rng.randint(max(0, n - 2), n + 1)])
        p, d = np.uint64(mine), np.uint64(theirs)
        *masks, n_open, d_make, n_two = survey(p, d, full, lines)
        assert [int(m) for m in masks] == [int(m) for m in scan(p, d, full, lines)]
        empty = variant.full_mask & ~(mine | theirs)
        expected_open = sum(1 for m in variant.line_masks if m & theirs == 0)
        expected_make = 0
        for m in variant.line_masks:
            if m & theirs and not m & mine and bin(m & empty).count("1") == 2:
                expected_make |= m & empty
        assert (n_open, int(d_make)) == (expected_open, expected_make)
        assert n_two == len(readable_scan(board_of(variant), mine, theirs)[2])
        seen["open"] += 0 < n_open < len(lines)
        seen["make"] += expected_make != 0
        seen["threat"] += int(masks[1]) != 0
    assert all(seen.values()), seen


@pytest.mark.parametrize("name", ["5x5k4", "7x7k5", "4x8k4", "4x4x4"])
def test_the_threat_search_s_move_summary_matches_the_readable_scans(name: str) -> None:
    """`threat_move`, which sums up a threat move in two passes over lines, against readable
    scans: the forced reply is the cell where the move makes its threat; the ordering key
    counts the prover's lines three short through the move (4 each) less the opponent's
    lines through the reply that it takes to a threat (16) or one short of one (1); and the
    search fails at once exactly where the next position would (the reply makes threats on
    two cells, or on one where the prover makes no threat, or the prover has no line two
    marks short left)."""
    variant = Variant.parse(name)
    board = board_of(variant)
    k = variant.k
    lines = np.array(variant.line_masks, dtype=np.uint64)
    t = tables(variant)
    full = np.uint64(variant.full_mask)
    rng = random.Random(name)
    seen = {True: 0, False: 0}
    keys = set()
    for _ in range(400):
        cells = rng.sample(range(variant.cells), variant.cells)
        n = rng.randint(2, variant.cells // 3)
        mine = sum(1 << c for c in cells[:n])
        theirs = sum(1 << c for c in cells[n:n + rng.randint(max(0, n - 1), n)])
        ours, others, twos = readable_scan(board, mine, theirs)
        if ours or others & (others - 1):
            continue  # the search ends before it tries a move
        n_two = survey(np.uint64(mine), np.uint64(theirs), full, lines)[6]
        empty = variant.full_mask & ~(mine | theirs)
        moves_now = 0
        for m in twos:
            moves_now |= m & empty
        if others:
            moves_now &= others  # the prover must block
        for c in cells_of(moves_now):
            made = threat_cells(board, mine | 1 << c, theirs)
            if made & (made - 1):
                continue  # two threats at once: the search wins without a reply
            after_ours, after_others, after_twos = readable_scan(board, mine | 1 << c,
                                                                 theirs | made)
            moves = 0
            for m in after_twos:
                moves |= m & ~(mine | theirs | 1 << c | made)
            if after_others:
                moves &= after_others
            expected = bool(after_others & (after_others - 1)) or moves == 0
            assert after_ours == 0
            key = 4 * sum(1 for m in variant.line_masks if m >> c & 1 and not m & theirs
                          and (m & empty).bit_count() == 3)
            for m in variant.line_masks:
                if m & made and not m & mine:
                    key -= {k - 2: 16, k - 3: 1}.get((m & theirs).bit_count(), 0)
            reply, got_key, fails = threat_move(c, np.uint64(mine), np.uint64(theirs),
                                                np.uint64(empty), n_two, t.lines, t.through,
                                                t.line_count, k)
            assert (int(reply), got_key, fails) == (made, key, expected)
            seen[expected] += 1
            keys.add(key)
    assert seen[True] > 20 and seen[False] > 20, seen
    assert len(keys) > 3, keys


def test_a_search_loads_its_kernels_before_it_starts_its_clock(monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    """`PnSearch.prove` warms the kernels first (`warm_up`), so a process's first search
    does not count compiling them in its seconds."""
    from tictactoe.search.pn import driver

    calls: list[float] = []
    monkeypatch.setattr(driver, "_WARM", [False])
    real = driver.warm_up

    def counting() -> float:
        calls.append(real())
        return calls[-1]

    monkeypatch.setattr(driver, "warm_up", counting)
    result = PnSearch("4x3", table_mb=1).prove("4x3")
    assert result.outcome == "win" and len(calls) >= 1 and driver._WARM[0]


def test_the_replies_an_and_node_leaves_out_each_lose_to_a_threat_sequence() -> None:
    """At a defender's node `and_children` keeps only the replies that no threat sequence
    refutes: after every reply it leaves out, the checker's readable threat search finds the
    attacker's win. Some are left out by replaying a sequence found after an earlier reply
    (more replies replayed than the pass's own sequence covers)."""
    from tictactoe.core.position import cells_of
    from tictactoe.proof.threats import ThreatSearch
    from tictactoe.search.pn import dfpn
    from tictactoe.search.pn.tss import replay, tss

    search = PnSearch("4x4x4", table_mb=16)
    t = search.t
    readable = ThreatSearch(Variant.parse("4x4x4"))
    rng = random.Random(48)
    checked = by_earlier = 0
    while checked < 25:
        position = random_position(rng, "4x4x4", 2 * rng.randint(3, 7))
        if position is None:
            continue
        x, o = np.uint64(position.marks(Side.X)), np.uint64(position.marks(Side.O))
        empty = t.full & ~(x | o)
        seq = np.zeros(64, dtype=np.int64)
        r = tss(o, x, 64, 2000, t.full, t.lines, t.through, t.line_count, t.k,
                search.ttss, search.misc, seq)  # X, to move, has no sequence to play first
        p_threat, d_threat, _, _ = scan(o, x, t.full, t.lines)
        if r >= 0 or p_threat or d_threat:
            continue
        # X has moved: O (the defender) to move, X (the attacker) after a pass
        r = tss(x, o, 64, 2000, t.full, t.lines, t.through, t.line_count, t.k,
                search.ttss, search.misc, seq)
        if r <= 0:
            continue
        pass_seq = seq[:r].copy()
        before = int(search.misc[dfpn.REPLAYED])
        kept = dfpn.and_children(x, o, 0, t.full, t.lines, t.through, t.line_count, t.k,
                                 search.ttss, search.misc, search.seqs, empty, search.work)
        replayed = int(search.misc[dfpn.REPLAYED]) - before
        by_pass = sum(replay(x, o | np.uint64(1 << c), pass_seq, r, t.full, t.lines, t.through,
                         t.line_count) >= 0
                      for c in cells_of(int(empty)))
        by_earlier += replayed > by_pass
        for c in cells_of(int(empty) & ~int(kept)):
            assert readable.run(int(x), int(o) | 1 << c) is not None, (position, c)
        checked += 1
    assert by_earlier > 0


@pytest.mark.parametrize("variant", ["4x4x4", "7x7k5", "5x5k4"])
def test_a_reply_outside_the_breaking_cells_leaves_the_sequence_winning(variant: str) -> None:
    """`and_children` skips replaying the pass's sequence after a reply outside
    `breaking_cells`: after every such reply, `replay` itself finds the sequence still wins.
    Some replies are skipped and some inside the cells do break it."""
    from tictactoe.core.position import cells_of
    from tictactoe.search.pn import dfpn
    from tictactoe.search.pn.tss import replay, tss

    search = PnSearch(variant, table_mb=16)
    t = search.t
    rng = random.Random(63)
    checked = skipped = broken = 0
    while checked < 30:
        position = random_position(rng, variant, 2 * rng.randint(2, 8))
        if position is None:
            continue
        x, o = np.uint64(position.marks(Side.X)), np.uint64(position.marks(Side.O))
        p_threat, d_threat, _, _ = scan(x, o, t.full, t.lines)
        seq = np.zeros(64, dtype=np.int64)
        r = tss(x, o, 64, 2000, t.full, t.lines, t.through, t.line_count, t.k,
                search.ttss, search.misc, seq)
        if r <= 0 or p_threat or d_threat:
            continue
        empty = int(t.full & ~(x | o))
        breaking = int(dfpn.breaking_cells(x, o, seq, r, t.full, t.lines, t.k))
        assert breaking & ~empty == 0
        for c in cells_of(empty):
            wins = replay(x, o | np.uint64(1 << c), seq, r, t.full, t.lines, t.through,
                          t.line_count) >= 0
            if not breaking >> c & 1:
                assert wins, (position, c)
                skipped += 1
            else:
                broken += not wins
        checked += 1
    assert skipped > 0 and broken > 0


def replay_by_scans(p: int, d: int, seq: list[int], variant: Variant) -> int:
    """`replay` the readable way: every position of the sequence scanned whole."""
    board = board_of(variant)
    for i in range(len(seq) + 1):
        ours, others, _ = readable_scan(board, p, d)
        if ours:
            return i
        if i == len(seq) or others & (others - 1):
            return -1
        c = seq[i]
        if (p | d) >> c & 1 or (others and others != 1 << c):
            return -1
        p |= 1 << c
        made = threat_cells(board, p, d)
        if not made:
            return -1
        if made & (made - 1):
            return i + 1
        d |= made
    return -1


@pytest.mark.parametrize("name", ["5x5k4", "7x7k5", "4x8k4", "4x4x4"])
def test_replay_agrees_with_scanning_every_position(name: str) -> None:
    """`replay` looks only at the lines through each move and its reply after its first
    scan; on random positions and random sequences (some of them threat sequences found by
    the search, some broken by a defender mark), it answers as scanning every position."""
    from tictactoe.search.pn.tss import replay, tss

    variant = Variant.parse(name)
    search = PnSearch(name, table_mb=16)
    t = search.t
    rng = random.Random(name)
    answers: dict[int, int] = {}
    for _ in range(300):
        cells = rng.sample(range(variant.cells), variant.cells)
        n = rng.randint(2, variant.cells // 3)
        mine = sum(1 << c for c in cells[:n])
        theirs = sum(1 << c for c in cells[n:n + rng.randint(max(0, n - 1), n)])
        seq = np.zeros(64, dtype=np.int64)
        r = tss(np.uint64(mine), np.uint64(theirs), 64, 2000, t.full, t.lines, t.through,
                t.line_count, t.k, search.ttss, search.misc, seq)
        moves = [int(c) for c in seq[:r]] if r > 0 else rng.sample(cells[n:], 3)
        empty = variant.full_mask & ~(mine | theirs)
        for extra in (None, *rng.sample([c for c in range(variant.cells) if empty >> c & 1],
                                     min(3, empty.bit_count()))):
            d = theirs | (0 if extra is None else 1 << extra)
            seq[:len(moves)] = moves
            got = replay(np.uint64(mine), np.uint64(d), seq, len(moves), t.full, t.lines,
                         t.through, t.line_count)
            assert got == replay_by_scans(mine, d, moves, variant), (mine, d, moves)
            answers[got] = answers.get(got, 0) + 1
    assert answers.get(-1, 0) > 20 and sum(v for k, v in answers.items() if k > 0) > 20, answers
