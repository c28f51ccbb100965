/* Replays saved fuzz inputs through a fuzz target without libFuzzer, so the
 * normal test run checks every corpus file: replay FILE_OR_DIR...  Exits 1
 * where it replayed no input (a missing or empty corpus). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    size_t got = n > 0 ? fread(buf, 1, (size_t)n, f) : 0;
    fclose(f);
    LLVMFuzzerTestOneInput(buf, got);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) continue;
        if (!S_ISDIR(st.st_mode)) {
            count += run_file(argv[i]) == 0;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
            count += run_file(p) == 0;
        }
        if (d) closedir(d);
    }
    printf("replayed %d inputs\n", count);
    /* a target with nothing to replay tests nothing: a failure */
    if (count == 0) {
        fprintf(stderr, "no input replayed: every fuzz target needs a seed corpus (tests/fuzz/corpus/NAME)\n");
        return 1;
    }
    return 0;
}
