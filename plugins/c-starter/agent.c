/* A starter agent program in C for arena's line protocol, version 1 (docs/protocol.md).
 *
 * Reads one JSON object per line on stdin and answers on stdout.  No JSON library: protocol 1 writes the
 * keys of an "act" request in a fixed order (type, id, legal, observation), so the first "legal" is the
 * request's own list.  The rule: play the first legal action; in Lovat's keep (legal is empty, a rule
 * describes the choice) keep the first subset of the dealt cards, in order, whose levels sum to level_sum
 * with min_size..max_size cards (a card's level is the digit after the "L" of its id, "L2-17").
 * Diagnostics go to stderr, which arena keeps in the seat's log.
 */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CARDS 64

static char cards[MAX_CARDS][16];
static int levels[MAX_CARDS];
static int chosen[MAX_CARDS];

/* The text just after "key": (the first occurrence at or after from), or NULL. */
static const char *after_key(const char *from, const char *key) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *found = strstr(from, pattern);
    return found ? found + strlen(pattern) : NULL;
}

/* Copies the JSON string starting at text (at its opening quote) into out; the text after it. */
static const char *read_string(const char *text, char *out, size_t size) {
    size_t n = 0;
    if (*text != '"') return NULL;
    for (text++; *text && *text != '"'; text++) {
        if (*text == '\\' && text[1]) text++;
        if (n + 1 < size) out[n++] = *text;
    }
    out[n] = '\0';
    return *text == '"' ? text + 1 : NULL;
}

/* Depth-first search for a keep: cards from index i on, level total so far, count so far. */
static int find_keep(int n, int i, int total, int count, int target, int least, int most) {
    if (total == target && count >= least && count <= most) return 1;
    if (i == n || total > target || count >= most) return 0;
    chosen[i] = 1;
    if (find_keep(n, i + 1, total + levels[i], count + 1, target, least, most)) return 1;
    chosen[i] = 0;
    return find_keep(n, i + 1, total, count, target, least, most);
}

static void answer_keep(long id, const char *observation) {
    const char *p = after_key(observation, "dealt");
    int n = 0;
    if (p && *p == '[') {
        for (p++; *p == '"' && n < MAX_CARDS; n++) {
            p = read_string(p, cards[n], sizeof cards[n]);
            if (!p) break;
            levels[n] = cards[n][0] == 'L' ? atoi(cards[n] + 1) : 0;
            chosen[n] = 0;
            if (*p == ',') p++;
        }
    }
    const char *target = after_key(observation, "level_sum");
    const char *least = after_key(observation, "min_size");
    const char *most = after_key(observation, "max_size");
    if (!target || !least || !most || !find_keep(n, 0, 0, 0, atoi(target), atoi(least), atoi(most))) {
        fprintf(stderr, "no keep found among %d cards\n", n);
        printf("{\"type\":\"action\",\"id\":%ld,\"action\":[]}\n", id);
        return;
    }
    printf("{\"type\":\"action\",\"id\":%ld,\"action\":[", id);
    for (int i = 0, first = 1; i < n; i++) {
        if (!chosen[i]) continue;
        printf("%s\"%s\"", first ? "" : ",", cards[i]);
        first = 0;
    }
    printf("]}\n");
}

static void answer(const char *line) {
    const char *id_text = after_key(line, "id");
    const char *legal = after_key(line, "legal");
    long id = id_text ? strtol(id_text, NULL, 10) : 0;
    if (!legal) return;
    if (legal[0] == '[' && legal[1] == '"') {
        char action[256];
        if (read_string(legal + 1, action, sizeof action)) {
            printf("{\"type\":\"action\",\"id\":%ld,\"action\":\"%s\"}\n", id, action);
            return;
        }
    }
    const char *observation = after_key(line, "observation");
    answer_keep(id, observation ? observation : line);
}

int main(void) {
    char *line = NULL;
    size_t capacity = 0;
    while (getline(&line, &capacity, stdin) > 0) {
        if (strstr(line, "{\"type\":\"hello\"") == line) {
            printf("{\"type\":\"ready\"}\n");
        } else if (strstr(line, "{\"type\":\"act\"") == line) {
            answer(line);
        } else if (strstr(line, "{\"type\":\"result\"") == line) {
            printf("{\"type\":\"done\"}\n");
            fflush(stdout);
            break;
        }
        fflush(stdout);
    }
    free(line);
    return 0;
}
