/* c_bot: a legal-move Skitgubbe bot in C99 (protocol v1, stdin/stdout).
 *
 * Answers `hello ...` with `hello name=c_bot ...`, answers
 * `request <id> <count> <move_1> ... <move_count> <fields...>` with a random legal move,
 * ignores every other message, and exits 0 on `quit` or end of input.
 * The generator is reseeded at every `game <number> seat=<s> ...` line from the game's number,
 * the seat and BOT_SEED (default 1): the same game is played the same way whatever this
 * process played before, so a resumed tournament equals an uninterrupted one.
 * Lines of any length are read with getline(); stdout is flushed after every answer.
 * Diagnostics go to stderr only.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long rng_state = 1;
static unsigned long base_seed = 1;

static unsigned long long splitmix64(unsigned long long z) {
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* game <number> seat=<s> ...: a fresh, reproducible stream for this game and seat */
static void reseed_for_game(const char *line) {
    unsigned long long number = line[4] ? strtoull(line + 5, NULL, 10) : 0, seat = 0; /* a bare "game" too */
    const char *s = strstr(line, " seat=");
    if (s) seat = strtoull(s + 6, NULL, 10);
    rng_state = (unsigned long)splitmix64(splitmix64(base_seed ^ (number << 8) ^ seat));
    if (rng_state == 0) rng_state = 1;
}

static unsigned long next_random(void) {
    /* xorshift64*: small, fixed, the same on every platform */
    unsigned long long x = rng_state;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    rng_state = (unsigned long)x;
    return (unsigned long)((x * 2685821657736338717ULL) >> 33);
}

static int starts_with_word(const char *line, const char *word) {
    size_t n = strlen(word);
    return strncmp(line, word, n) == 0 && (line[n] == ' ' || line[n] == '\0');
}

/* request <id> <count> <moves...> <fields...> -> "move <id> <one of the moves>" */
static void answer_request(char *line) {
    char *save = NULL;
    char *tok = strtok_r(line, " ", &save);   /* "request" */
    char *id = strtok_r(NULL, " ", &save);
    char *count_text = strtok_r(NULL, " ", &save);
    long count, pick, i;
    char *chosen = NULL;
    if (!tok || !id || !count_text) {
        fprintf(stderr, "c_bot: malformed request\n");
        return;
    }
    count = strtol(count_text, NULL, 10);
    if (count <= 0) {
        fprintf(stderr, "c_bot: request %s has no moves\n", id);
        return;
    }
    pick = (long)(next_random() % (unsigned long)count);
    for (i = 0; i < count; i++) {
        char *move = strtok_r(NULL, " ", &save);
        if (!move) break;
        if (i == 0 || i == pick) chosen = move;
        if (i == pick) break;
    }
    if (!chosen) {
        fprintf(stderr, "c_bot: request %s lists fewer moves than %ld\n", id, count);
        return;
    }
    printf("move %s %s\n", id, chosen);
    fflush(stdout);
}

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    const char *seed = getenv("BOT_SEED");
    if (seed && *seed) base_seed = strtoul(seed, NULL, 10);
    rng_state = base_seed ? base_seed : 1;
    while ((len = getline(&line, &cap, stdin)) != -1) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (starts_with_word(line, "hello")) {
            printf("hello name=c_bot version=1.0 author=skitgubbe-arena\n");
            fflush(stdout);
        } else if (starts_with_word(line, "request")) {
            answer_request(line);
        } else if (starts_with_word(line, "game")) {
            reseed_for_game(line);
        } else if (starts_with_word(line, "quit")) {
            break;
        }
        /* match, event, fault, gameover, matchover and unknown lines: ignored */
    }
    free(line);
    return 0;
}
