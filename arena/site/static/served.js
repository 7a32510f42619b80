/* Whether the page is served by `arena serve`, which makes any game's replay on demand:
   this file says no; the server answers its own, saying yes. */
window.ARENA_SERVED = false;
