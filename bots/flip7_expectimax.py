"""`flip7-expectimax`: a Flip 7 policy for the solo challenge (fewest rounds to the target).

The solo challenge asks for the fewest rounds to reach `target_score` (200). Every hit-or-stay
decision minimises the expected number of rounds still to play:

- ``V(t)``: the expected rounds from the start of a round with total ``t`` to the target
  (``V(t) = 0`` from the target on); staying with ``s`` costs ``V(t+s)``, a bust ``V(t)``.
  With ``values="optimum"`` (the default) it is the exact optimum of the fresh-deck relaxation
  (every round from a fresh full deck; `FRESH_DECK_ROUNDS_TO_200`, computed by
  ``benchmarks/flip7_solo_optimum.py``; a target below 200 reads it shifted, only the distance
  counts; above 200 the histogram is used). With ``values="histogram"`` (the bot before issue
  22 item 5) it is the renewal equation ``V(t) = (1 + sum_{s>0} P(s) V(t+s)) / (1 - P(0))``
  over ``ROUND_SCORES``, one histogram of round scores (``P(0)`` = busts) for every total:
  one step of policy iteration, measured over the 27,510 rounds that started below 120 points
  in 4,000 solo games of this policy priced by a first histogram from a stay-at-25 policy.
- Within the round the decision is an expectimax over the cards that can still be drawn,
  with their exact counts (``view["unseen"]``: the deck's composition is public by card
  counting; when the deck is about to run out the set-aside pile that will be shuffled in
  is counted as well). Each card type is drawn with probability count/size and changes
  the row exactly as the rules say: a duplicate busts (0 this round) unless a Second
  Chance is held, a seventh number ends the round with +15, a Freeze (self-targeted in
  solo) banks the row, a Flip Three forces three cards (stopping at a bust or a Flip 7),
  a Second Chance is kept. After each drawn card the policy takes the better of staying
  and hitting again, to a depth of ``depth`` cards; at the horizon it stays (forced Flip
  Three cards beyond the horizon are priced by a survival estimate).
- One-card lookahead first: if one more card already beats staying, hit (deeper search can
  only raise the value of hitting); otherwise the ``depth``-card search decides. A row whose
  banked score reaches the target always stays.

Action cards are aimed as `flip7-threshold` aims them (the class derives from it); in solo
they have a single target. In multi-player games the hit-or-stay rule above still only looks
at the bot's own total, which is what the solo challenge needs, not what a race needs.

Params: ``depth`` (int, default 2; 1 = one-card lookahead only); ``values`` ("optimum", the
default, or "histogram": the table ``V`` above). Deterministic (it uses no randomness at all).

Measured (``benchmarks/bench_flip7_solo.py``, 100,000 solo games to 200, deal seeds 1..100000):
mean 10.2407 rounds, 95% CI [10.2253, 10.2562]; with ``values="histogram"`` 10.2747
[10.2592, 10.2902] (paired difference 0.0340 [0.0272, 0.0407] rounds); flip7-threshold at 23,
its best threshold, on the same deals: 10.654 [10.638, 10.670]. The fresh-deck optimum itself
is 10.2854 (benchmarks/flip7_solo_notes.md): card counting in the real game beats it.
Depth 3 against 2 (20,000 paired games): -0.0084 rounds [-0.0168, +0.0000] at ten times the cost.
"""

from __future__ import annotations

from arena_bots.flip7_threshold import Flip7ThresholdBot

# Round scores (0..99, and 100 = "100 or more") of this policy in rounds starting below 120 points.
ROUND_SCORES = (
    8861, 9, 30, 28, 57, 51, 64, 82, 108, 119, 158, 155, 189, 61, 72, 72, 82, 94, 100, 148, 153, 258,
    355, 926, 799, 1103, 1267, 1481, 1347, 1389, 1261, 1165, 863, 785, 516, 420, 337, 239, 218, 152,
    127, 92, 100, 64, 92, 69, 94, 42, 83, 47, 83, 31, 98, 20, 82, 23, 79, 19, 72, 17, 79, 10, 58, 12,
    50, 14, 52, 18, 40, 14, 30, 11, 27, 13, 24, 10, 19, 5, 17, 3, 6, 4, 6, 2, 5, 1, 4, 0, 10, 0, 7, 1,
    9, 0, 5, 1, 6, 0, 3, 1, 25,
)

# card types: 0..12 numbers, then modifiers, then actions
N_TYPES = 22
T_MOD = {"+2": 13, "+4": 14, "+6": 15, "+8": 16, "+10": 17, "x2": 18}
T_FREEZE, T_FLIP_THREE, T_SECOND_CHANCE = 19, 20, 21
TYPE_OF = {**{str(n): n for n in range(13)}, **T_MOD, "freeze": T_FREEZE,
           "flip-three": T_FLIP_THREE, "second-chance": T_SECOND_CHANCE}
BONUS = {13: 2, 14: 4, 15: 6, 16: 8, 17: 10}
FLIP_7_BONUS = 15

# V(0..199) to reach 200 under the fresh-deck relaxation, optimal play
# (benchmarks/flip7_solo_optimum.py; benchmarks/flip7_solo_notes.md).
FRESH_DECK_ROUNDS_TO_200 = (
    10.285351301741, 10.236234212845, 10.187186706866, 10.138205964883, 10.089289421235, 10.040426782941,
    9.991611035966, 9.942826393476, 9.894061349006, 9.845295427328, 9.796515333318, 9.747698613690,
    9.698832118873, 9.649893863454, 9.600874887029, 9.551758337276, 9.502538038001, 9.453204160184,
    9.403771202106, 9.354242077140, 9.304633946286, 9.254964703912, 9.205265229103, 9.155556154947,
    9.105870026150, 9.056230514030, 9.006662688773, 8.957187263128, 8.907822005290, 8.858582374474,
    8.809467898964, 8.760486932028, 8.711637835380, 8.662915057390, 8.614294956331, 8.565770839263,
    8.517311181961, 8.468907325008, 8.420518550650, 8.372126639717, 8.323680831718, 8.275158666417,
    8.226498133460, 8.177689739574, 8.128681458666, 8.079476502625, 8.030023225829, 7.980357162975,
    7.930470400265, 7.880417808934, 7.830215449454, 7.779948533935, 7.729649063743, 7.679398013864,
    7.629229934042, 7.579223149797, 7.529401482136, 7.479801383686, 7.430443407934, 7.381321183846,
    7.332459973440, 7.283833127069, 7.235435896025, 7.187228826210, 7.139229872834, 7.091350464640,
    7.043622568800, 6.995939949599, 6.948318951938, 6.900624038748, 6.852861329968, 6.804853488386,
    6.756614981145, 6.707964212619, 6.658913693700, 6.609326739466, 6.559270769856, 6.508697046796,
    6.457754777657, 6.406452840880, 6.354824247844, 6.303194190005, 6.251694837981, 6.200475147280,
    6.149643552441, 6.099319885405, 6.049389302245, 5.999825353940, 5.950639560407, 5.901975806506,
    5.853619943523, 5.805795081089, 5.758274008694, 5.711253622750, 5.664399076113, 5.617943619795,
    5.571444089733, 5.525235016627, 5.478908558237, 5.432713268291, 5.386133817133, 5.339387691146,
    5.291906752639, 5.243839952616, 5.194385166690, 5.143902169686, 5.091984766379, 5.039023900639,
    4.984629045450, 4.930105863036, 4.875533041610, 4.821816413620, 4.768716518742, 4.716495109871,
    4.664725209025, 4.614092411685, 4.564311685810, 4.515312919128, 4.466696263963, 4.418920420966,
    4.371929197945, 4.325913212292, 4.280167521428, 4.235097889811, 4.190272199608, 4.146231652053,
    4.102331034295, 4.059018594842, 4.015467414223, 3.972054917958, 3.928256992745, 3.884265649548,
    3.839156556778, 3.792636372895, 3.742332853025, 3.689159003583, 3.630228745272, 3.569421283577,
    3.507138395781, 3.448336607421, 3.387569463361, 3.332414430543, 3.274321842558, 3.222310226938,
    3.167615078816, 3.118792974286, 3.067825652390, 3.021503409215, 2.972989910772, 2.929273874533,
    2.882842693562, 2.841541668810, 2.798517874008, 2.758954379781, 2.717453148304, 2.679798067714,
    2.639398144597, 2.602498730154, 2.563239680490, 2.526411344122, 2.487392632816, 2.451168645821,
    2.411882855308, 2.374022135277, 2.327683795532, 2.266931513413, 2.189327019945, 2.102824346932,
    2.024628509465, 1.948431849364, 1.873411913815, 1.805685246814, 1.744397762401, 1.685767915772,
    1.635612390824, 1.590569385509, 1.550448860305, 1.499011384140, 1.455755330371, 1.408129372536,
    1.369551455522, 1.331018108646, 1.299732491326, 1.270542281174, 1.247455492372, 1.226850318955,
    1.211111676499, 1.198169392078, 1.160770583671, 1.131011962045, 1.107580775964, 1.089513186307,
    1.075262621921, 1.064750261927, 1.056518283831, 1.050974618737, 1.046728034040, 1.044387444616,
    1.042624438195, 1.042137186838,
)

VALUES = ("optimum", "histogram")

_TABLES: dict[tuple[str, int], list[float]] = {}


def fresh_deck_rounds_to_go(target: int) -> list[float]:
    """``V[t]`` for t = 0 .. target + 399 from the fresh-deck optimum: only the distance to the
    target matters, so a target up to 200 reads the table for 200 shifted. ValueError above 200."""
    if not 1 <= target <= len(FRESH_DECK_ROUNDS_TO_200):
        raise ValueError(f"the fresh-deck table reaches targets up to 200, not {target}")
    table = _TABLES.get(("optimum", target))
    if table is None:
        shift = len(FRESH_DECK_ROUNDS_TO_200) - target
        table = [FRESH_DECK_ROUNDS_TO_200[t + shift] for t in range(target)] + [0.0] * 400
        _TABLES[("optimum", target)] = table
    return table


def rounds_to_go(target: int) -> list[float]:
    """``V[t]`` for t = 0 .. target + 399 (0 from the target on): expected rounds to the target,
    by the renewal equation over `ROUND_SCORES`."""
    table = _TABLES.get(("histogram", target))
    if table is not None:
        return table
    total = sum(ROUND_SCORES)
    p = [c / total for c in ROUND_SCORES]
    size = target + 400
    v = [0.0] * size
    for t in range(target - 1, -1, -1):
        acc = 1.0
        for s in range(1, len(p)):
            acc += p[s] * v[min(t + s, size - 1)]
        v[t] = acc / (1.0 - p[0])
    _TABLES[("histogram", target)] = v
    return v


def draw_pool(view) -> tuple[list[int], int]:
    """The cards a hit can draw, as counts per card type (`TYPE_OF`), and how many there are:
    the unseen cards, and the set-aside pile too when fewer than 3 are left in the deck."""
    pool = [0] * N_TYPES
    for card, count in view["unseen"].items():
        pool[TYPE_OF[card]] += count
    size = view["deck_size"]
    if size < 3:   # the set-aside pile is shuffled in when the deck runs out
        for card, count in view["set_aside"].items():
            pool[TYPE_OF[card]] += count
        size += sum(view["set_aside"].values())
    return pool, size


class Flip7ExpectimaxBot(Flip7ThresholdBot):
    """Hit or stay by expectimax over the deck's exact composition, priced in rounds to the target."""

    name = "flip7-expectimax"
    rulesets = ("flip-7",)

    def __init__(self, depth: int = 2, values: str = "optimum"):
        super().__init__()
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= 4:
            raise ValueError(f"depth must be an integer from 1 to 4, not {depth!r}")
        if values not in VALUES:
            raise ValueError(f"values must be one of {', '.join(VALUES)}, not {values!r}")
        self.depth = depth
        self.values = values

    def act(self, observation):
        legal = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        view = observation["view"]
        if view["decision"] != "hit-or-stay":
            return super().act(observation)
        return "hit" if self.should_hit(view, observation["seat"]) else "stay"

    # -- the decision -------------------------------------------------------------------

    def should_hit(self, view, me) -> bool:
        row = view["rows"][me]
        target = view["target_score"]
        total = view["totals"][me]
        if total + row["score"] >= target:
            return False
        if self.values == "optimum" and target <= len(FRESH_DECK_ROUNDS_TO_200):
            v = fresh_deck_rounds_to_go(target)
        else:
            v = rounds_to_go(target)
        pool, size = draw_pool(view)
        if size == 0:
            return False
        mask = 0
        for n in row["numbers"]:
            mask |= 1 << n
        bonus, x2 = 0, False
        for card in row["modifiers"]:
            if card == "x2":
                x2 = True
            else:
                bonus += BONUS[T_MOD[card]]
        search = _Search(v, total, pool, size)
        nsum, count, sc = row["number_sum"], len(row["numbers"]), row["second_chance"]
        stay = search.stop(nsum, bonus, x2, count)
        # values are minus the expected rounds to go: higher is better
        if search.hit(mask, nsum, count, bonus, x2, sc, 1) > stay:
            return True
        if self.depth == 1:
            return False
        return search.hit(mask, nsum, count, bonus, x2, sc, self.depth) > stay


class _Search:
    """Expectimax over draws from `pool` (counts per card type) for one decision."""

    __slots__ = ("v", "total", "pool", "size", "last")

    def __init__(self, v, total, pool, size):
        self.v, self.total, self.pool, self.size = v, total, pool, size
        self.last = len(v) - 1

    def stop(self, nsum, bonus, x2, count):
        """Value of banking this row now (minus the expected rounds to go afterwards)."""
        score = (2 * nsum if x2 else nsum) + bonus + (FLIP_7_BONUS if count == 7 else 0)
        t = self.total + score
        return -self.v[t if t < self.last else self.last]

    def cont(self, mask, nsum, count, bonus, x2, sc, depth):
        stay = self.stop(nsum, bonus, x2, count)
        if depth <= 0:
            return stay
        hit = self.hit(mask, nsum, count, bonus, x2, sc, depth)
        return hit if hit > stay else stay

    def hit(self, mask, nsum, count, bonus, x2, sc, depth):
        """Expected value of drawing one card now, then playing on to `depth` - 1 more."""
        pool, size = self.pool, self.size
        if size <= 0:
            return self.stop(nsum, bonus, x2, count)
        bust = -self.v[self.total]
        acc = 0.0
        for kind in range(N_TYPES):
            k = pool[kind]
            if not k:
                continue
            pool[kind] = k - 1
            self.size = size - 1
            if kind < 13:
                bit = 1 << kind
                if mask & bit:
                    value = self.cont(mask, nsum, count, bonus, x2, False, depth - 1) if sc else bust
                elif count == 6:
                    value = self.stop(nsum + kind, bonus, x2, 7)
                else:
                    value = self.cont(mask | bit, nsum + kind, count + 1, bonus, x2, sc, depth - 1)
            elif kind < 18:
                value = self.cont(mask, nsum, count, bonus + BONUS[kind], x2, sc, depth - 1)
            elif kind == 18:
                value = self.cont(mask, nsum, count, bonus, True, sc, depth - 1)
            elif kind == T_FREEZE:
                value = self.stop(nsum, bonus, x2, count)
            elif kind == T_FLIP_THREE:
                value = self.forced(mask, nsum, count, bonus, x2, sc, 3, depth - 1)
            else:
                value = self.cont(mask, nsum, count, bonus, x2, True, depth - 1)
            pool[kind] = k
            self.size = size
            acc += k * value
        return acc / size

    def forced(self, mask, nsum, count, bonus, x2, sc, left, depth):
        """Value of taking `left` forced cards (a Flip Three), then playing on."""
        if left == 0:
            return self.cont(mask, nsum, count, bonus, x2, sc, depth)
        pool, size = self.pool, self.size
        if depth <= 0 or size <= 0:
            return self._forced_estimate(mask, nsum, count, bonus, x2, sc, left)
        bust = -self.v[self.total]
        acc = 0.0
        for kind in range(N_TYPES):
            k = pool[kind]
            if not k:
                continue
            pool[kind] = k - 1
            self.size = size - 1
            if kind < 13:
                bit = 1 << kind
                if mask & bit:
                    value = (self.forced(mask, nsum, count, bonus, x2, False, left - 1, depth - 1)
                             if sc else bust)
                elif count == 6:
                    value = self.stop(nsum + kind, bonus, x2, 7)
                else:
                    value = self.forced(mask | bit, nsum + kind, count + 1, bonus, x2, sc, left - 1, depth - 1)
            elif kind < 18:
                value = self.forced(mask, nsum, count, bonus + BONUS[kind], x2, sc, left - 1, depth - 1)
            elif kind == 18:
                value = self.forced(mask, nsum, count, bonus, True, sc, left - 1, depth - 1)
            elif kind == T_SECOND_CHANCE:
                value = self.forced(mask, nsum, count, bonus, x2, True, left - 1, depth - 1)
            else:   # a Freeze or Flip Three set aside: priced as a plain card
                value = self.forced(mask, nsum, count, bonus, x2, sc, left - 1, depth - 1)
            pool[kind] = k
            self.size = size
            acc += k * value
        return acc / size

    def _forced_estimate(self, mask, nsum, count, bonus, x2, sc, left):
        """`left` forced cards beyond the horizon: survive each with the current duplicate
        odds, gain the mean fresh number each time, then stay."""
        pool, size = self.pool, max(1, self.size)
        dup = sum(pool[n] for n in range(13) if mask >> n & 1)
        fresh = [(n, pool[n]) for n in range(13) if not mask >> n & 1 and pool[n]]
        fresh_total = sum(c for _, c in fresh)
        mean = sum(n * c for n, c in fresh) / fresh_total if fresh_total else 0.0
        survive = 1.0
        for _ in range(left):
            if sc:
                sc = False
                continue
            survive *= max(0.0, 1.0 - dup / size)
        p_number = fresh_total / size
        gained = nsum + left * p_number * mean
        score = int(round((2 * gained if x2 else gained) + bonus))
        t = self.total + score
        return survive * -self.v[t if t < self.last else self.last] + (1 - survive) * -self.v[self.total]
