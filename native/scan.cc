// The native capture-line scan (lib/index/scan/native.ts): one stripped capture line, valid UTF-8, to the
// values the index stores for it (capture-file.ts `callValues`), in one pass over its bytes, with no JS value
// built. It answers only for lines it reads exactly as the lossless path does (scanStrict with the request
// shallow, then deriveRecord, lib/index/scan/capture-line.ts); for anything else it declines and the caller runs the
// JavaScript scan. Declining is always correct, so every rule below errs that way:
//   - any JSON error, a nesting deeper than MAX_DEPTH, an integer of 16 or more digits, `-0`, a float with a
//     3-digit exponent or 300 integer digits, NaN/Infinity: declined (the lossless parser decides);
//   - a surrogate `\u` escape in a checked string (a lone one is an error in orjson mode);
//   - an escape or a control byte in a key of an object whose keys the derivation reads, or in a string whose
//     value it stores; a key it reads seen twice in one object;
//   - a value the derivation coerces or may raise on in a shape other than the common ones (pydantic's lax
//     int/float/str, `model_ref`, truthy non-iterables in `summary` or `tool_calls`, a truthy non-string model).
// What the lossless path checks and how is mirrored from lib/index/scan/fast-exchange.ts: the request's members are read
// shallow (its `model` and scalars checked, its other strings and containers walked by structure only, as
// skippedContainerEnd does), `request_raw` and `response_raw` strings checked as checkedStringEnd does, every
// other value checked in full. tests/unit/index/scan/fast-scan.property.test.ts holds the two paths equal.
#include <node_api.h>

#include <emmintrin.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

// The output slots, in order. Spans are byte offsets into the line; a string's span is its content (without the
// quotes), -1 for null. Numbers are NaN for null. The list is written once: it makes the enum and the names the addon
// exports (`slotNames`), which lib/index/scan/addon.ts checks name by name against the NATIVE_SLOT_NAMES that
// lib/index/scan/native.ts reads the slots by (derived from the call row's columns, lib/index/call-row.ts), so that
// a layout changed on one side only is refused, not misread.
#define CALLSCOPE_SLOTS(X)                                                                                           \
  X(REQ_START) X(REQ_END) X(RESP_START) X(RESP_END)                                                                  \
  X(CALL_ID) X(CALL_ID_END) X(REF_NAME) X(REF_NAME_END) X(MODEL) X(MODEL_END) X(DIALECT) X(DIALECT_END)              \
  X(STATUS) X(STATUS_END) X(FINISH) X(FINISH_END) X(ERROR_CATEGORY) X(ERROR_CATEGORY_END)                            \
  X(STATUS_CODE) X(STARTED_AT) X(COMPLETED_AT) X(TOKENS_IN) X(TOKENS_OUT) X(TOKENS_REASONING) X(TOKENS_TOTAL)        \
  X(CACHED_TOKENS) X(CACHE_CREATION_TOKENS) X(CACHE_HIT) X(LATENCY_MS) X(TTFT_MS) X(TOOL_CALLS)

enum Slot {
#define CALLSCOPE_SLOT_ENUM(name) name,
  CALLSCOPE_SLOTS(CALLSCOPE_SLOT_ENUM)
#undef CALLSCOPE_SLOT_ENUM
  SLOTS
};

const char* const SLOT_NAMES[SLOTS] = {
#define CALLSCOPE_SLOT_NAME(name) #name,
    CALLSCOPE_SLOTS(CALLSCOPE_SLOT_NAME)
#undef CALLSCOPE_SLOT_NAME
};

constexpr size_t NO = SIZE_MAX;
// As FAST_DEPTH in lib/capture/json-skip.ts: far below orjson's 1024, so the limit itself never decides an outcome.
constexpr int MAX_DEPTH = 512;
inline bool isDigit(uint8_t c) { return c >= '0' && c <= '9'; }
inline bool isHex(uint8_t c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// The bytes a JSON text can hold outside its strings (TOKEN_BYTE in lib/capture/json-skip.ts), sorted as SKIP_CLASS sorts them.
enum SkipClass : uint8_t { SKIP_BAD = 0, SKIP_TOKEN = 1, SKIP_QUOTE = 2, SKIP_OPEN = 3, SKIP_CLOSE = 4 };
struct SkipTable {
  uint8_t c[256];
  SkipTable() : c{} {
    for (const char* p = " \t\n\r,:[]{}+-.0123456789eEtrufalsnNIiy"; *p; p++) c[(uint8_t)*p] = SKIP_TOKEN;
    c[(uint8_t)'"'] = SKIP_QUOTE;
    c[(uint8_t)'{'] = c[(uint8_t)'['] = SKIP_OPEN;
    c[(uint8_t)'}'] = c[(uint8_t)']'] = SKIP_CLOSE;
  }
};
const SkipTable SKIP;

// The bytes after a backslash that make an escape of two bytes (all but `u`, whose four hex digits follow).
struct SimpleEscapeTable {
  uint8_t c[256];
  SimpleEscapeTable() : c{} {
    for (const char* p = "\"\\/bfnrt"; *p; p++) c[(uint8_t)*p] = 1;
  }
};
const SimpleEscapeTable SIMPLE_ESCAPE;

struct Span {
  size_t start = NO, end = NO;
  bool set() const { return start != NO; }
};

// What a value is, as far as Python truthiness and `isinstance` go.
enum Kind : uint8_t { K_NONE, K_NULL, K_FALSE, K_TRUE, K_NUMBER, K_STRING, K_ARRAY, K_OBJECT };

struct Scan {
  const uint8_t* b;
  size_t n;
  double* out;
  Scan(const uint8_t* bytes, size_t length, double* output) : b(bytes), n(length), out(output) {}
  // the response's reads
  Span respModel, respStatus, stopReason, firstFinish, incompleteReason;
  Kind respModelKind = K_NONE;
  bool outputArray = false, choicesArray = false, contentArray = false;
  double outputCalls = 0, choicesCalls = 0, contentCalls = 0;
  // the request's `model`
  Span reqModel;
  // usage: each count NaN when not a valid one (validTokens), the detail groups' own flags
  double u[9] = {};
  bool detailObject[4] = {false, false, false, false};
  double detail[4][3] = {};

  int at(size_t i) const { return i < n ? b[i] : -1; }

  size_t ws(size_t i) const {
    while (i < n) {
      uint8_t c = b[i];
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') i++;
      else break;
    }
    return i;
  }

  bool equals(const Span& s, const char* word) const {
    size_t len = std::strlen(word);
    return s.end - s.start == len && std::memcmp(b + s.start, word, len) == 0;
  }

  // --- strings -------------------------------------------------------------------------------------------

  // The end of the string at i (its quote), checked as the lossless parser checks it; NO for an error or a
  // surrogate escape. `plain` is set when it holds no escape at all.
  size_t checkedString(size_t i, bool& plain) const {
    plain = true;
    size_t j = i + 1;
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), ctrl = _mm_set1_epi8(0x1f);
    for (;;) {
      // 16 bytes at a time to the next quote, backslash or control byte
      while (j + 16 <= n) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + j));
        __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)), _mm_cmpeq_epi8(_mm_max_epu8(v, ctrl), ctrl));
        int m = _mm_movemask_epi8(special);
        if (m) {
          j += __builtin_ctz(m);
          break;
        }
        j += 16;
      }
      if (j >= n) return NO;
      uint8_t c = b[j];
      if (c == '"') return j + 1;
      if (c < 0x20) return NO;
      if (c != '\\') {
        j++;
        continue;
      }
      plain = false;
      if (j + 1 >= n) return NO;
      uint8_t e = b[j + 1];
      if (SIMPLE_ESCAPE.c[e]) {
        j += 2;
        continue;
      }
      if (e != 'u' || !unicodeEscape(j + 1)) return NO;
      j += 6;
    }
  }

  // Whether the `u` at u starts an escape checkedString reads: four hex digits, and not a surrogate (declined).
  bool unicodeEscape(size_t u) const {
    if (u + 4 >= n || !isHex(b[u + 1]) || !isHex(b[u + 2]) || !isHex(b[u + 3]) || !isHex(b[u + 4])) return false;
    uint8_t h = b[u + 1], h2 = b[u + 2];
    return !((h == 'd' || h == 'D') && (h2 == '8' || h2 == '9' || (h2 >= 'a' && h2 <= 'f') || (h2 >= 'A' && h2 <= 'F')));
  }

  // A string whose value is read: checked, and without escapes (its bytes are its value). NO otherwise.
  size_t plainString(size_t i, Span& s) const {
    bool plain;
    size_t e = checkedString(i, plain);
    if (e == NO || !plain) return NO;
    s.start = i + 1;
    s.end = e - 1;
    return e;
  }

  // The end of the string at i walked by structure only (closingQuote in json-skip.ts: an unescaped quote).
  size_t skippedString(size_t i) const {
    size_t j = i + 1;
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    for (;;) {
      while (j + 16 <= n) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + j));
        int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
        if (m) {
          j += __builtin_ctz(m);
          break;
        }
        j += 16;
      }
      if (j >= n) return NO;
      if (b[j] == '"') return j + 1;
      if (b[j] == '\\') j += 2;
      else j++;
    }
  }

  // --- scalars -------------------------------------------------------------------------------------------

  // The number token at i, checked (JSON grammar and the guards above); `value` and `isFloat` set.
  size_t number(size_t i, double& value, bool& isFloat) const {
    size_t start = i;
    if (at(i) == '-') i++;
    size_t intStart = i;
    if (at(i) == '0') {
      i++;
      if (i < n && isDigit(b[i])) return NO;
    } else if (i < n && b[i] >= '1' && b[i] <= '9') {
      while (i < n && isDigit(b[i])) i++;
    } else {
      return NO;
    }
    size_t intDigits = i - intStart;
    isFloat = false;
    if (at(i) == '.') {
      isFloat = true;
      i++;
      size_t f = i;
      while (i < n && isDigit(b[i])) i++;
      if (i == f) return NO;
    }
    if (at(i) == 'e' || at(i) == 'E') {
      isFloat = true;
      i++;
      if (at(i) == '+' || at(i) == '-') i++;
      size_t e = i;
      while (i < n && isDigit(b[i])) i++;
      if (i == e || i - e >= 3) return NO;
    }
    if (isFloat ? intDigits >= 300 : intDigits >= 16) return NO;
    if (!isFloat && b[start] == '-' && b[intStart] == '0') return NO;
    if (i - start > 64) return NO;
    auto r = std::from_chars(reinterpret_cast<const char*>(b + start), reinterpret_cast<const char*>(b + i), value);
    if (r.ec != std::errc() || r.ptr != reinterpret_cast<const char*>(b + i)) return NO;
    return i;
  }

  size_t literal(size_t i, Kind& kind) const {
    if (i + 4 <= n && std::memcmp(b + i, "true", 4) == 0) return kind = K_TRUE, i + 4;
    if (i + 4 <= n && std::memcmp(b + i, "null", 4) == 0) return kind = K_NULL, i + 4;
    if (i + 5 <= n && std::memcmp(b + i, "false", 5) == 0) return kind = K_FALSE, i + 5;
    return NO;
  }

  // --- any value, checked in full ------------------------------------------------------------------------

  size_t value(size_t i, int depth, Kind* kindOut = nullptr, bool* empty = nullptr) const {
    if (i >= n) return NO;
    uint8_t c = b[i];
    Kind kind = K_NONE;
    size_t e;
    if (c == '"') {
      bool plain;
      e = checkedString(i, plain);
      kind = K_STRING;
      if (empty) *empty = e == i + 2;
    } else if (c == '{' || c == '[') {
      if (depth >= MAX_DEPTH) return NO;
      kind = c == '{' ? K_OBJECT : K_ARRAY;
      e = container(i, depth + 1, empty);
    } else if (c == '-' || isDigit(c)) {
      double v;
      bool isFloat;
      e = number(i, v, isFloat);
      kind = K_NUMBER;
      if (empty) *empty = v == 0;
    } else {
      e = literal(i, kind);
    }
    if (kindOut) *kindOut = kind;
    return e;
  }

  size_t container(size_t i, int depth, bool* empty) const {
    bool object = b[i] == '{';
    uint8_t close = object ? '}' : ']';
    i = ws(i + 1);
    if (empty) *empty = at(i) == close;
    if (at(i) == close) return i + 1;
    for (;;) {
      if (object) {
        bool plain;
        if (at(i) != '"') return NO;
        i = checkedString(i, plain);
        if (i == NO) return NO;
        i = ws(i);
        if (at(i) != ':') return NO;
        i = ws(i + 1);
      }
      i = value(i, depth);
      if (i == NO) return NO;
      i = ws(i);
      int c = at(i);
      if (c == ',') i = ws(i + 1);
      else if (c == close) return i + 1;
      else return NO;
    }
  }

  // The end of the container at i walked by structure only (skippedContainerEnd), `depth` deep. 64 bytes at a
  // time, as simdjson's first stage does: masks of the quotes and backslashes give the escaped bytes (a byte
  // after an odd run of backslashes), the unescaped quotes give which bytes are inside a string (a prefix XOR),
  // and only the bytes outside strings that are not whitespace, a quote or a number byte (`+,-.0-9:`) are then
  // looked at one by one, in order: the brackets, the letters of literals, and bytes that decline. Up to its
  // first decline this is json-skip.ts's byte walk (skippedContainerEndJs; tests/unit/index/scan/skip-native.property.test.ts).
  size_t skippedContainer(size_t i, int depth) const {
    uint8_t closers[MAX_DEPTH + 2];
    int level = 0;
    uint64_t escapedIn = 0;   // bit 0: the block's first byte is escaped
    uint64_t insideIn = 0;    // all ones: the block starts inside a string
    alignas(16) uint8_t tail[64];
    for (size_t base = i; base < n; base += 64) {
      const uint8_t* p = block(base, tail);
      Masks m = masks(p);
      uint64_t escaped = escapedBytes(m.backslash, escapedIn);
      uint64_t quotes = m.quote & ~escaped;
      uint64_t inside = prefixXor(quotes) ^ insideIn;  // an opening quote is inside, a closing one is not
      insideIn = (uint64_t)0 - (inside >> 63);
      uint64_t events = ~(m.plain | m.quote) & ~inside;
      while (events) {
        unsigned k = __builtin_ctzll(events);
        events &= events - 1;
        uint8_t c = p[k];
        switch (SKIP.c[c]) {
          case SKIP_TOKEN:
            continue;
          case SKIP_OPEN:
            if (depth + level >= MAX_DEPTH) return NO;
            closers[++level] = c + 2;
            continue;
          case SKIP_CLOSE:
            if (level == 0 || closers[level] != c) return NO;
            if (--level == 0) return base + k + 1;
            continue;
          default:
            return NO;
        }
      }
    }
    return NO;
  }

  // 64 bytes of the text from `base`: in place, or for the last, partial block a copy padded with 0 bytes, which
  // decline outside a string and, as control bytes, a string not ended before them.
  const uint8_t* block(size_t base, uint8_t* tail) const {
    if (base + 64 <= n) return b + base;
    std::memset(tail, 0, 64);
    std::memcpy(tail, b + base, n - base);
    return tail;
  }

  // The escaped bytes of a block (simdjson's json_escape_scanner): the bytes after an odd-length run of backslashes.
  // `carry` (bit 0: the block's first byte is escaped) is read, and set for the next block.
  static uint64_t escapedBytes(uint64_t backslash, uint64_t& carry) {
    uint64_t in = carry;
    carry = 0;
    if (!backslash) return in;
    const uint64_t odd = 0xAAAAAAAAAAAAAAAAULL;
    uint64_t potential = backslash & ~in;
    uint64_t code = (((potential << 1) | odd) - potential) ^ odd;
    carry = (code & backslash) >> 63;
    return code ^ (backslash | in);
  }

  struct Masks {
    uint64_t quote, backslash, plain;  // plain: whitespace and number bytes, which never change the walk
  };

  static Masks masks(const uint8_t* p) {
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'),
                  nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), slash = _mm_set1_epi8('/'), numLow = _mm_set1_epi8('+'),
                  numSpan = _mm_set1_epi8(':' - '+');
    Masks m = {0, 0, 0};
    for (int k = 0; k < 4; k++) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
      __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, tab)), _mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, cr)));
      __m128i off = _mm_sub_epi8(v, numLow);  // '+' .. ':' is 0 .. 15 (unsigned), '/' among them excluded
      __m128i num = _mm_andnot_si128(_mm_cmpeq_epi8(v, slash), _mm_cmpeq_epi8(_mm_min_epu8(off, numSpan), off));
      int shift = 16 * k;
      m.quote |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) << shift;
      m.backslash |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)) << shift;
      m.plain |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_or_si128(ws, num)) << shift;
    }
    return m;
  }

  // Each bit: the XOR of it and every bit below it.
  static uint64_t prefixXor(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
  }

  // --- objects whose keys are read --------------------------------------------------------------------

  // Walks the object at i, calling member(keySpan, valueStart) -> valueEnd for each member. Keys must be plain.
  template <typename F>
  size_t members(size_t i, F member) const {
    i = ws(i + 1);
    if (at(i) == '}') return i + 1;
    for (;;) {
      Span key;
      if (at(i) != '"') return NO;
      i = plainString(i, key);
      if (i == NO) return NO;
      i = ws(i);
      if (at(i) != ':') return NO;
      i = member(key, ws(i + 1));
      if (i == NO) return NO;
      i = ws(i);
      int c = at(i);
      if (c == ',') i = ws(i + 1);
      else if (c == '}') return i + 1;
      else return NO;
    }
  }

  // Calls element(valueStart, index) -> valueEnd for each element of the array at i.
  template <typename F>
  size_t elements(size_t i, F element) const {
    i = ws(i + 1);
    if (at(i) == ']') return i + 1;
    for (size_t k = 0;; k++) {
      i = element(i, k);
      if (i == NO) return NO;
      i = ws(i);
      int c = at(i);
      if (c == ',') i = ws(i + 1);
      else if (c == ']') return i + 1;
      else return NO;
    }
  }

  // A key read once per object: false for a second time.
  static bool once(uint32_t& seen, int bit) {
    if (seen & (1u << bit)) return false;
    seen |= 1u << bit;
    return true;
  }

  // A string read (escapes declined), or any other value checked and left unset.
  size_t stringOrOther(size_t i, int depth, Span& s) const {
    if (at(i) == '"') return plainString(i, s);
    return value(i, depth);
  }

  // validTokens: a JSON integer >= 0, else NaN (null).
  size_t tokens(size_t i, int depth, double& v) const {
    v = NAN;
    int c = at(i);
    if (c == '-' || (c >= '0' && c <= '9')) {
      double x;
      bool isFloat;
      size_t e = number(i, x, isFloat);
      if (e != NO && !isFloat && x >= 0) v = x;
      return e;
    }
    return value(i, depth);
  }

  // --- the response ------------------------------------------------------------------------------------

  size_t usage(size_t i, int depth) {
    static const char* const COUNTS[9] = {"input_tokens", "prompt_tokens", "output_tokens", "completion_tokens", "cache_read_input_tokens",
                                          "cache_creation_input_tokens", "total_tokens", "reasoning_output_tokens", "cached_input_tokens"};
    static const char* const GROUPS[4] = {"output_tokens_details", "completion_tokens_details", "prompt_tokens_details", "input_tokens_details"};
    static const char* const DETAILS[3] = {"reasoning_tokens", "cached_tokens", "cached_input_tokens"};
    uint32_t seen = 0;
    return members(i, [&](const Span& key, size_t v) -> size_t {
      for (int k = 0; k < 9; k++) {
        if (!equals(key, COUNTS[k])) continue;
        if (!once(seen, k)) return NO;
        return tokens(v, depth + 1, u[k]);
      }
      for (int g = 0; g < 4; g++) {
        if (!equals(key, GROUPS[g])) continue;
        if (!once(seen, 9 + g)) return NO;
        if (at(v) != '{') return value(v, depth + 1);
        if (depth + 1 >= MAX_DEPTH) return NO;
        detailObject[g] = true;
        uint32_t seenDetail = 0;
        return members(v, [&](const Span& dkey, size_t dv) -> size_t {
          for (int d = 0; d < 3; d++) {
            if (!equals(dkey, DETAILS[d])) continue;
            if (!once(seenDetail, d)) return NO;
            return tokens(dv, depth + 2, detail[g][d]);
          }
          return value(dv, depth + 2);
        });
      }
      return value(v, depth + 1);
    });
  }

  // `output` (Responses): function calls counted; a reasoning item's summary must iterate.
  size_t output(size_t i, int depth) {
    outputArray = true;
    return elements(i, [&](size_t v, size_t) -> size_t {
      if (at(v) != '{') return value(v, depth + 1);
      if (depth + 1 >= MAX_DEPTH) return NO;
      Span type;
      Kind summary = K_NONE;
      bool summaryEmpty = true;
      uint32_t seen = 0;
      size_t e = members(v, [&](const Span& key, size_t w) -> size_t {
        if (equals(key, "type")) return once(seen, 0) ? stringOrOther(w, depth + 2, type) : NO;
        if (equals(key, "summary")) return once(seen, 1) ? value(w, depth + 2, &summary, &summaryEmpty) : NO;
        return value(w, depth + 2);
      });
      if (e == NO) return NO;
      if (type.set() && equals(type, "function_call")) outputCalls++;
      // iterate(): a truthy number or `true` raises; declined
      if (type.set() && equals(type, "reasoning") && (summary == K_TRUE || (summary == K_NUMBER && !summaryEmpty))) return NO;
      return e;
    });
  }

  // `choices` (Chat Completions): tool calls of each message counted, the first choice's finish_reason.
  size_t choices(size_t i, int depth) {
    choicesArray = true;
    return elements(i, [&](size_t v, size_t k) -> size_t {
      if (at(v) != '{') return value(v, depth + 1);
      if (depth + 1 >= MAX_DEPTH) return NO;
      uint32_t seen = 0;
      return members(v, [&](const Span& key, size_t w) -> size_t {
        if (equals(key, "finish_reason")) {
          if (!once(seen, 0)) return NO;
          if (k == 0) return stringOrOther(w, depth + 2, firstFinish);
          return value(w, depth + 2);
        }
        if (!equals(key, "message")) return value(w, depth + 2);
        if (!once(seen, 1)) return NO;
        if (at(w) != '{') return value(w, depth + 2);
        if (depth + 2 >= MAX_DEPTH) return NO;
        uint32_t seenMessage = 0;
        return members(w, [&](const Span& mkey, size_t x) -> size_t {
          if (!equals(mkey, "tool_calls")) return value(x, depth + 3);
          if (!once(seenMessage, 0)) return NO;
          if (at(x) == '[') {
            if (depth + 3 >= MAX_DEPTH) return NO;
            return elements(x, [&](size_t y, size_t) -> size_t {
              if (at(y) == '{') choicesCalls++;
              return value(y, depth + 4);
            });
          }
          // iterate(): falsy, a string or an object give no tool call; a number or `true` may raise: declined
          Kind kind;
          size_t e = value(x, depth + 3, &kind);
          return kind == K_NUMBER || kind == K_TRUE ? NO : e;
        });
      });
    });
  }

  // `content` (Anthropic Messages): tool_use blocks counted.
  size_t content(size_t i, int depth) {
    contentArray = true;
    return elements(i, [&](size_t v, size_t) -> size_t {
      if (at(v) != '{') return value(v, depth + 1);
      if (depth + 1 >= MAX_DEPTH) return NO;
      Span type;
      uint32_t seen = 0;
      size_t e = members(v, [&](const Span& key, size_t w) -> size_t {
        if (equals(key, "type")) return once(seen, 0) ? stringOrOther(w, depth + 2, type) : NO;
        return value(w, depth + 2);
      });
      if (e != NO && type.set() && equals(type, "tool_use")) contentCalls++;
      return e;
    });
  }

  size_t response(size_t i) {
    const int depth = 1;
    uint32_t seen = 0;
    return members(i, [&](const Span& key, size_t v) -> size_t {
      int c = at(v);
      if (equals(key, "model")) {
        if (!once(seen, 0)) return NO;
        if (c == '"') {
          size_t e = plainString(v, respModel);
          respModelKind = K_STRING;
          return e;
        }
        // null and false are falsy (the request's model is read); a truthy non-string gives null: declined
        Kind kind;
        size_t e = value(v, depth + 1, &kind);
        respModelKind = kind;
        return kind == K_NULL || kind == K_FALSE ? e : NO;
      }
      if (equals(key, "status")) return once(seen, 1) ? stringOrOther(v, depth + 1, respStatus) : NO;
      if (equals(key, "stop_reason")) return once(seen, 2) ? stringOrOther(v, depth + 1, stopReason) : NO;
      if (equals(key, "usage")) {
        if (!once(seen, 3)) return NO;
        return c == '{' ? usage(v, depth + 1) : value(v, depth + 1);
      }
      if (equals(key, "incomplete_details")) {
        if (!once(seen, 4)) return NO;
        if (c != '{') return value(v, depth + 1);
        uint32_t seenDetails = 0;
        return members(v, [&](const Span& dkey, size_t w) -> size_t {
          if (!equals(dkey, "reason")) return value(w, depth + 2);
          return once(seenDetails, 0) ? stringOrOther(w, depth + 2, incompleteReason) : NO;
        });
      }
      if (equals(key, "output")) {
        if (!once(seen, 5)) return NO;
        return c == '[' ? output(v, depth + 1) : value(v, depth + 1);
      }
      if (equals(key, "choices")) {
        if (!once(seen, 6)) return NO;
        return c == '[' ? choices(v, depth + 1) : value(v, depth + 1);
      }
      if (equals(key, "content")) {
        if (!once(seen, 7)) return NO;
        return c == '[' ? content(v, depth + 1) : value(v, depth + 1);
      }
      return value(v, depth + 1);
    });
  }

  // --- the request (shallow) ---------------------------------------------------------------------------

  size_t request(size_t i) {
    uint32_t seen = 0;
    return members(i, [&](const Span& key, size_t v) -> size_t {
      int c = at(v);
      if (equals(key, "model")) {
        if (!once(seen, 0)) return NO;
        return stringOrOther(v, 2, reqModel);
      }
      if (c == '"') return skippedString(v);
      if (c == '{' || c == '[') return skippedContainer(v, 2);
      return value(v, 2);
    });
  }

  // --- the exchange ------------------------------------------------------------------------------------

  // pydantic's lax str: a string (read) or null; anything else raises: declined.
  size_t laxStr(size_t i, int slot) {
    if (at(i) == '"') {
      Span s;
      size_t e = plainString(i, s);
      out[slot] = (double)s.start;
      out[slot + 1] = (double)s.end;
      return e;
    }
    Kind kind;
    size_t e = literal(i, kind);
    return e != NO && kind == K_NULL ? e : NO;
  }

  // pydantic's lax int (an integer token) or float (any number token), or null; anything else declined.
  size_t laxNumber(size_t i, int slot, bool integer) {
    int c = at(i);
    if (c == '-' || (c >= '0' && c <= '9')) {
      bool isFloat;
      size_t e = number(i, out[slot], isFloat);
      return integer && isFloat ? NO : e;
    }
    Kind kind;
    size_t e = literal(i, kind);
    return e != NO && kind == K_NULL ? e : NO;
  }

  // model_ref: null, or {"type": "responses_api_models", "name": <string>, ...}; anything else declined.
  size_t modelRef(size_t i) {
    if (at(i) != '{') {
      Kind kind;
      size_t e = literal(i, kind);
      return e != NO && kind == K_NULL ? e : NO;
    }
    Span type, name;
    uint32_t seen = 0;
    size_t e = members(i, [&](const Span& key, size_t v) -> size_t {
      if (equals(key, "type")) return once(seen, 0) && at(v) == '"' ? plainString(v, type) : NO;
      if (equals(key, "name")) return once(seen, 1) && at(v) == '"' ? plainString(v, name) : NO;
      return value(v, 2);
    });
    if (e == NO || !type.set() || !name.set() || !equals(type, "responses_api_models")) return NO;
    out[REF_NAME] = (double)name.start;
    out[REF_NAME_END] = (double)name.end;
    return e;
  }

  size_t rawBody(size_t i) const {
    if (at(i) == '"') return checkedLongString(i);
    return value(i, 1);
  }

  // checkedString's answer for a long string, 64 bytes at a time. A raw body is JSON or SSE text inside a string:
  // an escape every few bytes, and checkedString's 16-byte search stops at each. Here the escaped bytes come from
  // the masks (as in skippedContainer), the end is the first unescaped quote, and the string is declined when a
  // control byte or an escape checkedString declines comes before it.
  size_t checkedLongString(size_t i) const {
    uint64_t escapedIn = 0;  // bit 0: the block's first byte is escaped
    alignas(16) uint8_t tail[64];
    for (size_t base = i + 1; base < n; base += 64) {
      const uint8_t* p = block(base, tail);
      StringMasks m = stringMasks(p);
      uint64_t escaped = escapedBytes(m.backslash, escapedIn);
      uint64_t quotes = m.quote & ~escaped;
      uint64_t before = quotes ? (quotes & (0 - quotes)) - 1 : ~0ULL;  // the bytes before the end
      if (m.control & before) return NO;
      for (uint64_t e = escaped & before; e; e &= e - 1) {
        unsigned k = __builtin_ctzll(e);
        // A `u` escape's hex digits are none of the bytes the masks mark, so they are checked where they are.
        if (!SIMPLE_ESCAPE.c[p[k]] && !(p[k] == 'u' && unicodeEscape(base + k))) return NO;
      }
      if (quotes) return base + __builtin_ctzll(quotes) + 1;
    }
    return NO;
  }

  struct StringMasks {
    uint64_t quote, backslash, control;
  };

  static StringMasks stringMasks(const uint8_t* p) {
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), ctrl = _mm_set1_epi8(0x1f);
    StringMasks m = {0, 0, 0};
    for (int k = 0; k < 4; k++) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
      int shift = 16 * k;
      m.quote |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) << shift;
      m.backslash |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)) << shift;
      m.control |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, ctrl), ctrl)) << shift;
    }
    return m;
  }

  bool run() {
    for (int k = 0; k < SLOTS; k++) out[k] = k < STATUS_CODE ? -1 : NAN;
    for (double& x : u) x = NAN;
    for (auto& g : detail) for (double& x : g) x = NAN;
    size_t i = ws(0);
    if (at(i) != '{') return false;
    uint32_t seen = 0;
    bool requestObject = false, responseObject = false;
    // The request or the response at v: walked as an object (span kept) or checked as any other value.
    auto payload = [&](size_t v, bool& isObject, size_t (Scan::*walk)(size_t), int slot) -> size_t {
      isObject = at(v) == '{';
      size_t e = isObject ? (this->*walk)(v) : value(v, 1);
      out[slot] = (double)v;
      out[slot + 1] = (double)e;
      return e;
    };
    i = members(i, [&](const Span& key, size_t v) -> size_t {
      switch (key.end - key.start) {
        case 7:
          if (equals(key, "request")) return once(seen, 0) ? payload(v, requestObject, &Scan::request, REQ_START) : NO;
          if (equals(key, "dialect")) return once(seen, 1) ? laxStr(v, DIALECT) : NO;
          break;
        case 8:
          if (equals(key, "response")) return once(seen, 2) ? payload(v, responseObject, &Scan::response, RESP_START) : NO;
          break;
        case 9:
          if (equals(key, "model_ref")) return once(seen, 3) ? modelRef(v) : NO;
          break;
        case 10:
          if (equals(key, "started_at")) return once(seen, 4) ? laxNumber(v, STARTED_AT, false) : NO;
          if (equals(key, "latency_ms")) return once(seen, 5) ? laxNumber(v, LATENCY_MS, false) : NO;
          break;
        case 11:
          if (equals(key, "status_code")) return once(seen, 6) ? laxNumber(v, STATUS_CODE, true) : NO;
          if (equals(key, "request_raw")) return rawBody(v);
          break;
        case 12:
          if (equals(key, "completed_at")) return once(seen, 7) ? laxNumber(v, COMPLETED_AT, false) : NO;
          if (equals(key, "response_raw")) return rawBody(v);
          break;
        case 13:
          if (equals(key, "model_call_id")) return once(seen, 8) ? laxStr(v, CALL_ID) : NO;
          break;
        case 14:
          if (equals(key, "error_category")) return once(seen, 9) ? laxStr(v, ERROR_CATEGORY) : NO;
          break;
        case 15:
          if (equals(key, "latency_ttft_ms")) return once(seen, 10) ? laxNumber(v, TTFT_MS, false) : NO;
          break;
      }
      return value(v, 1);
    });
    if (i == NO || ws(i) != n) return false;
    if (!requestObject) out[REQ_START] = out[REQ_END] = -1;
    if (!responseObject) out[RESP_START] = out[RESP_END] = -1;
    derive(responseObject);
    return true;
  }

  void setSpan(int slot, const Span& s) {
    out[slot] = (double)s.start;
    out[slot + 1] = (double)s.end;
  }

  // deriveRecord's reads of the response (record.ts), from what the walk saw.
  void derive(bool responseObject) {
    // model: a truthy response model, else the request's (a string, else null)
    if (respModelKind == K_STRING && respModel.end > respModel.start) setSpan(MODEL, respModel);
    else if (reqModel.set()) setSpan(MODEL, reqModel);
    if (!responseObject) {
      out[TOOL_CALLS] = 0;
      return;
    }
    if (respStatus.set()) setSpan(STATUS, respStatus);
    if (stopReason.set()) setSpan(FINISH, stopReason);
    else if (choicesArray && firstFinish.set()) setSpan(FINISH, firstFinish);
    else if (incompleteReason.set()) setSpan(FINISH, incompleteReason);
    out[TOOL_CALLS] = outputArray ? outputCalls : choicesArray ? choicesCalls : contentArray ? contentCalls : 0;
    // extractTokenStats and cacheSignal; the counts have at most 15 digits, so sums are exact doubles
    enum { IN, PROMPT, OUT, COMPLETION, CACHE_READ, CACHE_CREATION, TOTAL, REASONING_OUT, CACHED_INPUT };
    auto valid = [](double x) { return !std::isnan(x); };
    double in = valid(u[IN]) ? u[IN] : u[PROMPT];
    double outTokens = valid(u[OUT]) ? u[OUT] : u[COMPLETION];
    double cr = u[CACHE_READ], cc = u[CACHE_CREATION];
    if (valid(cr) || valid(cc)) {
      double total = (valid(cr) ? cr : 0) + (valid(cc) ? cc : 0);
      if (valid(in) || total > 0) in = (valid(in) ? in : 0) + total;
    }
    double total = u[TOTAL];
    if (!valid(total) && valid(in) && valid(outTokens)) total = in + outTokens;
    double reasoning = NAN;
    if (detailObject[0]) reasoning = detail[0][0];
    if (!valid(reasoning) && detailObject[1]) reasoning = detail[1][0];
    if (!valid(reasoning)) reasoning = u[REASONING_OUT];
    out[TOKENS_IN] = in;
    out[TOKENS_OUT] = outTokens;
    out[TOKENS_REASONING] = reasoning;
    out[TOKENS_TOTAL] = total;
    out[CACHE_CREATION_TOKENS] = cc;
    double cached = NAN;
    for (int g = 2; g < 4 && !valid(cached); g++) {
      if (!detailObject[g]) continue;
      if (valid(detail[g][1])) cached = detail[g][1];
      else if (valid(detail[g][2])) cached = detail[g][2];
    }
    if (!valid(cached)) cached = valid(cr) ? cr : u[CACHED_INPUT];
    out[CACHED_TOKENS] = cached;
    out[CACHE_HIT] = valid(cached) ? (cached > 0 ? 1 : 0) : NAN;
  }
};

// --- the rollouts-file shallow scan (fast-shallow.ts scanShallowFast, ported line for line) ---------------------
//
// The text JSON.parse reads for a rollout line, written into `dst`: the line as it is, except the values of its
// shallow objects, which keep only their listed members (the others walked, their scalars checked). Every
// decision (what is kept, skipped, counted or declined) is lib/index/scan/fast-shallow.ts's own; the JavaScript port there
// stays the reference, and tests/unit/rollouts/rollout-line.property.test.ts holds the two equal.

struct ShallowConfig {
  struct Entry {
    std::string key;
    std::vector<std::string> keep;
  };
  std::vector<Entry> entries;
  std::string countParent, countKey;  // empty: nothing counted
};

struct Shallow {
  const uint8_t* b;
  size_t n;
  uint8_t* dst;
  size_t len = 0;
  uint8_t closers[MAX_DEPTH + 2];
  bool keptIntegralFloat = false;
  size_t keyEnd = 0;        // memberValue: the closing quote of the key
  bool objectClosed = false;  // nextMember
  double counted = -1;      // -1: null
  double shallowCounted = -1;
  size_t countedObjects = 0;

  Shallow(const uint8_t* bytes, size_t length, uint8_t* out) : b(bytes), n(length), dst(out) {}

  int at(size_t i) const { return i < n ? b[i] : -1; }
  size_t ws(size_t i) const {
    while (i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) i++;
    return i;
  }
  void emit(size_t from, size_t to) {
    std::memcpy(dst + len, b + from, to - from);
    len += to - from;
  }
  void emit(char c) { dst[len++] = (uint8_t)c; }
  bool keyIs(size_t start, size_t end, const std::string& word) const {
    return end - start == word.size() && std::memcmp(b + start, word.data(), word.size()) == 0;
  }

  // closingQuote: the unescaped quote closing a string whose content starts at j, or NO
  size_t closingQuote(size_t j) const {
    Scan walker(b, n, nullptr);
    size_t e = walker.skippedString(j - 1);
    return e == NO ? NO : e - 1;
  }

  static bool scalarEnd(int c) { return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

  // keptValueEnd(b, i, depth, noteFloats)
  size_t keptValueEnd(size_t i, int depth, bool noteFloats) {
    int level = 0;
    int usageLevel = 0;
    bool usageNext = false;
    while (i < n) {
      uint8_t c = b[i];
      if (c == '"') {
        int first = at(i + 1);
        size_t j = closingQuote(i + 1);
        if (j == NO) return NO;
        size_t start = i + 1;
        i = j + 1;
        usageNext = false;
        if (first >= '0' && first <= '9') {
          if (at(ws(i)) == ':') return NO;
        } else if (j - start == 5 && std::memcmp(b + start, "usage", 5) == 0 && at(ws(i)) == ':') {
          usageNext = true;
        }
        if (level == 0) return i;
        continue;
      }
      if (c == '{' || c == '[') {
        if (depth + level >= MAX_DEPTH) return NO;
        closers[++level] = c + 2;
        if (usageNext && usageLevel == 0) usageLevel = level;
        usageNext = false;
        i++;
        continue;
      }
      if (c == '}' || c == ']') {
        if (level == 0 || closers[level] != c) return NO;
        if (level == usageLevel) usageLevel = 0;
        level--;
        i++;
        if (level == 0) return i;
        continue;
      }
      if (c == '-' || isDigit(c)) {
        size_t start = i;
        if (c == '-') i++;
        size_t intStart = i;
        while (i < n && isDigit(b[i])) i++;
        size_t intDigits = i - intStart;
        bool isFloat = false;
        if (at(i) == '.') {
          isFloat = true;
          i++;
          while (i < n && isDigit(b[i])) i++;
        }
        if (at(i) == 'e' || at(i) == 'E') {
          isFloat = true;
          i++;
          if (at(i) == '+' || at(i) == '-') i++;
          size_t expStart = i;
          while (i < n && isDigit(b[i])) i++;
          if (i - expStart >= 3) return NO;
        }
        if (isFloat && intDigits >= 300) return NO;
        if (isFloat) {
          if (usageLevel > 0 || usageNext) {
            if (integralOrInfinite(start, i)) return NO;
          } else if (noteFloats && !keptIntegralFloat) {
            if (integralOrInfinite(start, i)) keptIntegralFloat = true;
          }
        } else if (intDigits >= 16 || intDigits == 0 || (c == '-' && b[intStart] == '0')) {
          return NO;
        }
        usageNext = false;
        if (level == 0) return i;
        continue;
      }
      if (c == 't' || c == 'f' || c == 'n') {
        while (i < n && !scalarEnd(b[i])) i++;
        usageNext = false;
        if (level == 0) return i;
        continue;
      }
      if (level == 0) return NO;
      if (c == ',' || c == ':' || c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        i++;
        continue;
      }
      return NO;
    }
    return NO;
  }

  // Number(token) is integral or not finite. A token JavaScript reads as NaN (a malformed one) is neither:
  // JSON.parse then refuses the text, as it refuses it in fast-shallow.ts.
  bool integralOrInfinite(size_t start, size_t end) const {
    double v;
    auto r = std::from_chars(reinterpret_cast<const char*>(b + start), reinterpret_cast<const char*>(b + end), v);
    if (r.ec == std::errc::result_out_of_range) {
      // overflow (Infinity) or underflow (0, integral): either way true
      return true;
    }
    if (r.ec != std::errc() || r.ptr != reinterpret_cast<const char*>(b + end)) return false;
    return !std::isfinite(v) || v == std::trunc(v);
  }

  size_t skipped(size_t i, int depth) const {
    Scan walker(b, n, nullptr);
    return walker.skippedContainer(i, depth);
  }

  // countedArrayEnd(b, i, depth)
  size_t countedArrayEnd(size_t i, int depth) {
    if (depth >= MAX_DEPTH) return NO;
    size_t objects = 0;
    i = ws(i + 1);
    if (at(i) == ']') {
      countedObjects = 0;
      return i + 1;
    }
    for (;;) {
      int c = at(i);
      if (c == '"') {
        size_t q = closingQuote(i + 1);
        if (q == NO) return NO;
        i = q + 1;
      } else if (c == '{' || c == '[') {
        if (c == '{') objects++;
        i = skipped(i, depth + 1);
        if (i == NO) return NO;
      } else {
        return NO;
      }
      i = ws(i);
      if (at(i) == ']') {
        countedObjects = objects;
        return i + 1;
      }
      if (at(i) != ',') return NO;
      i = ws(i + 1);
    }
  }

  // memberValue(b, i, noIndexKey): the value's start past the colon, keyEnd set; NO to decline
  size_t memberValue(size_t i, bool noIndexKey) {
    if (at(i) != '"') return NO;
    size_t j = i + 1;
    for (; j < n; j++) {
      uint8_t c = b[j];
      if (c == '"') break;
      if (c == '\\' || c < 0x20) return NO;
    }
    if (j >= n) return NO;
    if (noIndexKey && isDigit(b[i + 1]) && i + 1 < j) return NO;
    size_t colon = ws(j + 1);
    if (at(colon) != ':') return NO;
    keyEnd = j;
    return ws(colon + 1);
  }

  size_t nextMember(size_t i) {
    i = ws(i);
    int c = at(i);
    objectClosed = c == '}';
    if (c == ',') return ws(i + 1);
    return objectClosed ? i + 1 : NO;
  }

  // A skipped scalar: valid as JSON.parse reads one (the JSON grammar, any length; true, false, null).
  bool validScalar(size_t start, size_t end) const {
    size_t len = end - start;
    if ((len == 4 && (std::memcmp(b + start, "true", 4) == 0 || std::memcmp(b + start, "null", 4) == 0)) ||
        (len == 5 && std::memcmp(b + start, "false", 5) == 0)) {
      return true;
    }
    size_t i = start;
    if (i < end && b[i] == '-') i++;
    if (i >= end) return false;
    if (b[i] == '0') i++;
    else if (b[i] >= '1' && b[i] <= '9') while (i < end && isDigit(b[i])) i++;
    else return false;
    if (i < end && b[i] == '.') {
      size_t f = ++i;
      while (i < end && isDigit(b[i])) i++;
      if (i == f) return false;
    }
    if (i < end && (b[i] == 'e' || b[i] == 'E')) {
      i++;
      if (i < end && (b[i] == '+' || b[i] == '-')) i++;
      size_t e = i;
      while (i < end && isDigit(b[i])) i++;
      if (i == e) return false;
    }
    return i == end;
  }

  // reducedShallow(b, i, keep, counting, isCapture, out, scalars)
  size_t reducedShallow(size_t i, const ShallowConfig::Entry& entry, bool counting, const std::string& countKey, bool isCapture) {
    i = ws(i + 1);
    emit('{');
    if (at(i) == '}') {
      emit('}');
      return i + 1;
    }
    bool first = true;
    for (;;) {
      size_t keyStart = i;
      i = memberValue(i, false);
      if (i == NO) return NO;
      size_t ks = keyStart + 1, ke = keyEnd;
      int c = at(i);
      size_t end;
      bool kept = false;
      for (const auto& k : entry.keep) {
        if (keyIs(ks, ke, k)) {
          kept = true;
          break;
        }
      }
      bool isCounting = counting && keyIs(ks, ke, countKey);
      if (kept) {
        keptIntegralFloat = false;
        end = keptValueEnd(i, 2, isCapture || keyIs(ks, ke, "usage"));
        if (end == NO) return NO;
        if (keptIntegralFloat && !keyIs(ks, ke, "metrics")) return NO;
        if (!first) emit(',');
        emit(keyStart, end);
        first = false;
      } else if (c == '"') {
        size_t q = closingQuote(i + 1);
        if (q == NO) return NO;
        end = q + 1;
        if (isCounting) shallowCounted = 0;
      } else if (isCounting && c == '[') {
        end = countedArrayEnd(i, 2);
        if (end == NO) return NO;
        shallowCounted = (double)countedObjects;
      } else if (c == '{' || c == '[') {
        end = skipped(i, 2);
        if (end == NO) return NO;
        if (isCounting) shallowCounted = 0;
      } else {
        end = i;
        while (end < n && !scalarEnd(b[end])) end++;
        if (end == i) return NO;
        if (!validScalar(i, end)) return NO;
        if (isCounting) shallowCounted = 0;
      }
      i = nextMember(end);
      if (i == NO) return NO;
      if (objectClosed) {
        emit('}');
        return i;
      }
    }
  }

  // scanShallowFast(b, shallow, count): the reduced text's length in dst, or NO to decline
  size_t run(const ShallowConfig& config) {
    static const std::string CAPTURE_KEY = "ng_model_call_capture";
    size_t i = ws(0);
    if (at(i) != '{') return NO;
    i = ws(i + 1);
    if (at(i) == '}') return NO;
    size_t copied = 0;
    bool sawCapture = false;
    for (;;) {
      size_t keyStart = i;
      i = memberValue(i, true);
      if (i == NO) return NO;
      size_t ks = keyStart + 1, ke = keyEnd;
      size_t start = i;
      bool isCapture = keyIs(ks, ke, CAPTURE_KEY);
      if (isCapture) {
        if (sawCapture) return NO;
        sawCapture = true;
      }
      const ShallowConfig::Entry* entry = nullptr;
      for (const auto& e : config.entries) {
        if (keyIs(ks, ke, e.key)) {
          entry = &e;
          break;
        }
      }
      if (entry && at(i) == '{') {
        if (start > copied) emit(copied, start);
        bool counting = !config.countParent.empty() && keyIs(ks, ke, config.countParent);
        shallowCounted = -1;
        i = reducedShallow(i, *entry, counting, config.countKey, isCapture);
        if (i == NO) return NO;
        if (counting) counted = shallowCounted;
        copied = i;
      } else {
        keptIntegralFloat = false;
        i = keptValueEnd(i, 1, true);
        if (i == NO) return NO;
        if (keptIntegralFloat && (isCapture || (ke - ks >= 4 && std::memcmp(b + ks, "_ng_", 4) == 0))) return NO;
      }
      i = nextMember(i);
      if (i == NO) return NO;
      if (objectClosed) break;
    }
    if (ws(i) != n) return NO;
    if (copied < n) emit(copied, n);
    return len;
  }
};

// --- a capture file new to the index, read whole (lib/index/ingest/native-read.ts) --------------------------------
// What readFileForIngest (lib/index/ingest/capture-file.ts) reads from a file it has never read, with its calls written
// straight into the columns a ClickHouse cold pass inserts (encodeCalls' form, clickhouse/call-columns.ts) and the
// rollout's call totals (aggregates/call-totals.ts callTotals) computed beside them: no line, value or string reaches
// JavaScript. It answers only where the JavaScript path would give the same, byte for byte; anything else (a line
// the line scan declines, a value an Int64 column would round, a tag that JavaScript's sort might order otherwise,
// a read error) declines the file, and the caller reads the job in JavaScript.
// tests/unit/index/ingest/native-read.property.test.ts holds the two equal.

// The columns, in ENCODED_CALL_COLUMNS' order with its types (native-read.ts checks the two agree, name by name).
#define CALLSCOPE_CALL_COLUMNS(X)                                                                                     \
  X(call_index, I64) X(model_call_id, STR) X(line_offset, NI64) X(line_length, NI64) X(req_off, NI64) X(req_len, NI64) \
  X(resp_off, NI64) X(resp_len, NI64) X(model_server, STR) X(model, STR) X(dialect, STR) X(status_code, NI64)         \
  X(response_status, STR) X(finish_reason, STR) X(error_category, STR) X(started_at, NF64) X(completed_at, NF64)      \
  X(tokens_in, NI64) X(tokens_out, NI64) X(tokens_reasoning, NI64) X(tokens_total, NI64) X(cached_tokens, NI64)       \
  X(cache_creation_tokens, NI64) X(cache_hit, NI64) X(latency_ms, NF64) X(ttft_ms, NF64) X(tool_calls, NI64)

enum ColumnKind { I64, NI64, NF64, STR };
enum CallColumn {
#define CALLSCOPE_COLUMN_ENUM(name, kind) C_##name,
  CALLSCOPE_CALL_COLUMNS(CALLSCOPE_COLUMN_ENUM)
#undef CALLSCOPE_COLUMN_ENUM
  CALL_COLUMN_COUNT
};
const ColumnKind COLUMN_KIND[CALL_COLUMN_COUNT] = {
#define CALLSCOPE_COLUMN_KIND(name, kind) kind,
    CALLSCOPE_CALL_COLUMNS(CALLSCOPE_COLUMN_KIND)
#undef CALLSCOPE_COLUMN_KIND
};
const char* const COLUMN_NAME[CALL_COLUMN_COUNT] = {
#define CALLSCOPE_COLUMN_NAME(name, kind) #name ":" #kind,
    CALLSCOPE_CALL_COLUMNS(CALLSCOPE_COLUMN_NAME)
#undef CALLSCOPE_COLUMN_NAME
};

// The meta values a read answers with (native-read.ts reads them by these places). NaN: null.
enum Meta {
  M_DEV, M_INO, M_SIZE, M_MTIME_SEC, M_MTIME_NSEC, M_OFFSET, M_LINES, M_CALLS,
  M_TOKENS_IN, M_TOKENS_OUT, M_TOKENS_REASONING, M_TOKENS_TOTAL, M_CACHED, M_LATENCY_SUM, M_LATENCY_MAX, M_TTFT_MEDIAN,
  M_ERRORS, M_STARTED, M_COMPLETED, META_COUNT
};

// A job's calls, column by column, as encodeColumns lays them out: a String column's row offsets, a Nullable column's
// null bytes (1: null), and the values (Int64 and Float64 8 bytes little-endian, String a varint length and its bytes).
struct CallColumns {
  std::vector<uint8_t> values[CALL_COLUMN_COUNT];
  std::vector<uint8_t> nulls[CALL_COLUMN_COUNT];
  std::vector<uint32_t> offsets[CALL_COLUMN_COUNT];
  size_t rows = 0;

  struct Mark {
    size_t rows;
    size_t values[CALL_COLUMN_COUNT];
  };
  Mark mark() const {
    Mark m;
    m.rows = rows;
    for (int c = 0; c < CALL_COLUMN_COUNT; c++) m.values[c] = values[c].size();
    return m;
  }
  void rollback(const Mark& m) {
    rows = m.rows;
    for (int c = 0; c < CALL_COLUMN_COUNT; c++) {
      values[c].resize(m.values[c]);
      if (COLUMN_KIND[c] != I64) nulls[c].resize(m.rows);
      if (COLUMN_KIND[c] == STR) offsets[c].resize(m.rows);
    }
  }
  void clear() {
    Mark empty{};
    rollback(empty);
  }
  void raw(int c, const void* p, size_t len) {
    const uint8_t* bytes = static_cast<const uint8_t*>(p);
    values[c].insert(values[c].end(), bytes, bytes + len);
  }
  // An integer column's value: false (decline) for one that encodeColumns would not write as this exact integer.
  bool integer(int c, double v) {
    if (v != v) {
      if (COLUMN_KIND[c] == I64) return false;
      nulls[c].push_back(1);
      int64_t zero = 0;
      raw(c, &zero, 8);
      return true;
    }
    if (v != std::trunc(v) || std::fabs(v) >= 9007199254740992.0) return false;
    if (COLUMN_KIND[c] != I64) nulls[c].push_back(0);
    int64_t x = (int64_t)v;
    raw(c, &x, 8);
    return true;
  }
  void real(int c, double v) {
    bool null = v != v;
    nulls[c].push_back(null ? 1 : 0);
    double x = null ? 0.0 : v;
    raw(c, &x, 8);
  }
  void text(int c, const uint8_t* line, double start, double end) {
    offsets[c].push_back((uint32_t)values[c].size());
    if (start < 0) {
      nulls[c].push_back(1);
      values[c].push_back(0);
      return;
    }
    nulls[c].push_back(0);
    size_t len = (size_t)(end - start);
    size_t n = len;
    while (n >= 0x80) {
      values[c].push_back((uint8_t)(n | 0x80));
      n >>= 7;
    }
    values[c].push_back((uint8_t)n);
    raw(c, line + (size_t)start, len);
  }
  // Bytes of the whole layout (encodeColumns'): every String column's offsets first, then each column's nulls and values.
  size_t bytes() const {
    size_t total = 0;
    for (int c = 0; c < CALL_COLUMN_COUNT; c++) {
      if (COLUMN_KIND[c] == STR) total += 4 * (rows + 1);
      if (COLUMN_KIND[c] != I64) total += rows;
      total += values[c].size();
    }
    return total;
  }
  void write(uint8_t* dst) const {
    for (int c = 0; c < CALL_COLUMN_COUNT; c++) {
      if (COLUMN_KIND[c] != STR) continue;
      if (rows) std::memcpy(dst, offsets[c].data(), 4 * rows);
      uint32_t last = (uint32_t)values[c].size();
      std::memcpy(dst + 4 * rows, &last, 4);
      dst += 4 * (rows + 1);
    }
    for (int c = 0; c < CALL_COLUMN_COUNT; c++) {
      if (COLUMN_KIND[c] != I64) {
        if (rows) std::memcpy(dst, nulls[c].data(), rows);
        dst += rows;
      }
      if (!values[c].empty()) std::memcpy(dst, values[c].data(), values[c].size());
      dst += values[c].size();
    }
  }
};

// Strict UTF-8 (what Buffer's isUtf8 accepts): no overlong forms, surrogates or code points past U+10FFFF.
bool validUtf8(const uint8_t* p, size_t n) {
  size_t i = 0;
  while (i < n) {
    // ASCII (most of a line's bytes) 64 and then 16 bytes at a time.
    if (i + 64 <= n) {
      const __m128i* q = reinterpret_cast<const __m128i*>(p + i);
      __m128i any = _mm_or_si128(_mm_or_si128(_mm_loadu_si128(q), _mm_loadu_si128(q + 1)), _mm_or_si128(_mm_loadu_si128(q + 2), _mm_loadu_si128(q + 3)));
      if (_mm_movemask_epi8(any) == 0) {
        i += 64;
        continue;
      }
    }
    if (i + 16 <= n && _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))) == 0) {
      i += 16;
      continue;
    }
    uint8_t c = p[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t need;
    uint8_t lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) need = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
      need = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      need = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else return false;
    if (i + need >= n) return false;
    if (p[i + 1] < lo || p[i + 1] > hi) return false;
    for (size_t k = 2; k <= need; k++)
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) return false;
    i += need + 1;
  }
  return true;
}

inline bool asciiSpace(uint8_t c) { return c == 32 || (c >= 9 && c <= 13); }

// Math.max and Math.min of two numbers that are not NaN (+0 above -0).
inline double jsMax(double a, double b) { return a > b ? a : b > a ? b : std::signbit(a) ? b : a; }
inline double jsMin(double a, double b) { return a < b ? a : b < a ? b : std::signbit(a) ? a : b; }

// callTotals (aggregates/call-totals.ts), call by call in the same order and the same double arithmetic.
struct Totals {
  double tokens[5] = {NAN, NAN, NAN, NAN, NAN};
  std::vector<double> latencies, ttfts;
  double latencyMax = NAN, started = NAN, completed = NAN;
  double errors = 0;
  std::vector<std::string> tags[3];  // servers, dialects, error categories

  // A tag's value added to its set (a few values per file: compared in place, copied only when new).
  static void tag(std::vector<std::string>& set, const uint8_t* line, double start, double end) {
    if (start < 0) return;
    std::string_view v(reinterpret_cast<const char*>(line) + (size_t)start, (size_t)(end - start));
    for (const std::string& s : set)
      if (s == v) return;
    set.emplace_back(v);
  }
  void add(const double* o, const uint8_t* line) {
    const int slots[5] = {TOKENS_IN, TOKENS_OUT, TOKENS_REASONING, TOKENS_TOTAL, CACHED_TOKENS};
    for (int k = 0; k < 5; k++) {
      double v = o[slots[k]];
      if (v == v) tokens[k] = (tokens[k] == tokens[k] ? tokens[k] : 0) + v;
    }
    double latency = o[LATENCY_MS];
    if (latency == latency) {
      latencies.push_back(latency);
      latencyMax = latencyMax == latencyMax ? jsMax(latencyMax, latency) : latency;
    }
    if (o[TTFT_MS] == o[TTFT_MS]) ttfts.push_back(o[TTFT_MS]);
    if (o[ERROR_CATEGORY] >= 0) errors++;
    tag(tags[0], line, o[REF_NAME], o[REF_NAME_END]);
    tag(tags[1], line, o[DIALECT], o[DIALECT_END]);
    tag(tags[2], line, o[ERROR_CATEGORY], o[ERROR_CATEGORY_END]);
    if (o[STARTED_AT] == o[STARTED_AT]) started = started == started ? jsMin(started, o[STARTED_AT]) : o[STARTED_AT];
    if (o[COMPLETED_AT] == o[COMPLETED_AT]) completed = completed == completed ? jsMax(completed, o[COMPLETED_AT]) : o[COMPLETED_AT];
  }
  // neumaierSum (lib/capture/metrics.ts).
  static double neumaier(const std::vector<double>& values) {
    double s = 0, c = 0;
    for (double x : values) {
      double t = s + x;
      if (std::fabs(s) >= std::fabs(x)) c += s - t + x;
      else c += x - t + s;
      s = t;
    }
    if (c != 0 && std::isfinite(c)) s += c;
    return s;
  }
  static double median(std::vector<double> values) {
    if (values.empty()) return NAN;
    std::stable_sort(values.begin(), values.end(), [](double a, double b) { return a < b; });
    size_t mid = values.size() >> 1;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  }
  // A tag list as callTotals writes it, or false when JavaScript's sort (by UTF-16 unit) might order it otherwise than
  // by bytes: only where a value has a character past U+FFFF.
  static bool tagList(std::vector<std::string>& set, std::string& out) {
    for (const std::string& s : set)
      for (unsigned char ch : s)
        if (ch >= 0xF0) return false;
    std::sort(set.begin(), set.end());
    out.clear();
    for (const std::string& s : set) out += "|" + s;
    if (!set.empty()) out += "|";
    return true;
  }
};

enum ReadStatus { R_ABSENT = 0, R_UNOPENABLE = 1, R_DECLINED = 2, R_READ = 3 };

struct FileReader {
  std::vector<uint8_t> buf = std::vector<uint8_t>(4 << 20);
  CallColumns calls;
  double slots[SLOTS];

  // The file's terminated lines, as readLinesSync and scanCalls read them from offset 0 to the size fstat gave.
  ReadStatus read(const char* path, double* meta, std::string tags[3]) {
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT || errno == ELOOP || errno == ENOTDIR ? R_ABSENT : R_UNOPENABLE;
    struct stat st;
    if (fstat(fd, &st) != 0) {
      close(fd);
      return R_DECLINED;
    }
    if (!S_ISREG(st.st_mode)) {
      close(fd);
      return R_ABSENT;
    }
    CallColumns::Mark mark = calls.mark();
    Totals totals;
    size_t lines = 0, callIndex = 0;
    size_t end = (size_t)st.st_size, base = 0, filled = 0, lineStart = 0;
    bool ok = true;
    while (ok && base + filled < end) {
      if (filled == buf.size()) {
        if (lineStart > 0) {
          std::memmove(buf.data(), buf.data() + lineStart, filled - lineStart);
          filled -= lineStart;
          base += lineStart;
          lineStart = 0;
        } else buf.resize(buf.size() * 2);
      }
      ssize_t got = pread(fd, buf.data() + filled, std::min(buf.size() - filled, end - base - filled), (off_t)(base + filled));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) ok = false;
      if (got <= 0) break;
      size_t from = filled;
      filled += (size_t)got;
      size_t at = std::max(from, lineStart);
      while (ok) {
        const uint8_t* nl = static_cast<const uint8_t*>(std::memchr(buf.data() + at, '\n', filled - at));
        if (!nl) break;
        size_t lineEnd = nl - buf.data();
        ok = line(buf.data() + lineStart, lineEnd - lineStart, base + lineStart, callIndex, totals);
        lines++;
        lineStart = at = lineEnd + 1;
      }
    }
    close(fd);
    if (ok) {
      for (int k = 0; k < 3; k++) ok = ok && Totals::tagList(totals.tags[k], tags[k]);
    }
    if (!ok) {
      calls.rollback(mark);
      return R_DECLINED;
    }
    meta[M_DEV] = (double)st.st_dev;
    meta[M_INO] = (double)st.st_ino;
    meta[M_SIZE] = (double)st.st_size;
    meta[M_MTIME_SEC] = (double)st.st_mtim.tv_sec;
    meta[M_MTIME_NSEC] = (double)st.st_mtim.tv_nsec;
    meta[M_OFFSET] = (double)(base + lineStart);
    meta[M_LINES] = (double)lines;
    meta[M_CALLS] = (double)callIndex;
    for (int k = 0; k < 5; k++) meta[M_TOKENS_IN + k] = totals.tokens[k];
    meta[M_LATENCY_SUM] = totals.latencies.empty() ? NAN : Totals::neumaier(totals.latencies);
    meta[M_LATENCY_MAX] = totals.latencyMax;
    meta[M_TTFT_MEDIAN] = Totals::median(totals.ttfts);
    meta[M_ERRORS] = totals.errors;
    meta[M_STARTED] = totals.started;
    meta[M_COMPLETED] = totals.completed;
    return R_READ;
  }

  // One terminated line (without its newline) at `offset`: a blank one skipped, a call's row appended; false to decline.
  bool line(const uint8_t* p, size_t len, size_t offset, size_t& callIndex, Totals& totals) {
    size_t s = 0, e = len;
    while (s < e && asciiSpace(p[s])) s++;
    while (e > s && asciiSpace(p[e - 1])) e--;
    if (s == e) return true;
    const uint8_t* b = p + s;
    if (!validUtf8(b, e - s)) return false;
    Scan scan(b, e - s, slots);
    if (!scan.run()) return false;
    const double* o = slots;
    double shift = (double)s;
    bool req = o[REQ_START] >= 0, resp = o[RESP_START] >= 0;
    CallColumns& c = calls;
    bool exact = c.integer(C_call_index, (double)callIndex) && c.integer(C_line_offset, (double)offset) && c.integer(C_line_length, (double)len) &&
                 c.integer(C_req_off, req ? o[REQ_START] + shift : NAN) && c.integer(C_req_len, req ? o[REQ_END] - o[REQ_START] : NAN) &&
                 c.integer(C_resp_off, resp ? o[RESP_START] + shift : NAN) && c.integer(C_resp_len, resp ? o[RESP_END] - o[RESP_START] : NAN) &&
                 c.integer(C_status_code, o[STATUS_CODE]) && c.integer(C_tokens_in, o[TOKENS_IN]) && c.integer(C_tokens_out, o[TOKENS_OUT]) &&
                 c.integer(C_tokens_reasoning, o[TOKENS_REASONING]) && c.integer(C_tokens_total, o[TOKENS_TOTAL]) &&
                 c.integer(C_cached_tokens, o[CACHED_TOKENS]) && c.integer(C_cache_creation_tokens, o[CACHE_CREATION_TOKENS]) &&
                 c.integer(C_cache_hit, o[CACHE_HIT]) && o[TOOL_CALLS] == o[TOOL_CALLS] && c.integer(C_tool_calls, o[TOOL_CALLS]);
    if (!exact) return false;  // the caller rolls the file back (a row half written included)
    c.text(C_model_call_id, b, o[CALL_ID], o[CALL_ID_END]);
    c.text(C_model_server, b, o[REF_NAME], o[REF_NAME_END]);
    c.text(C_model, b, o[MODEL], o[MODEL_END]);
    c.text(C_dialect, b, o[DIALECT], o[DIALECT_END]);
    c.text(C_response_status, b, o[STATUS], o[STATUS_END]);
    c.text(C_finish_reason, b, o[FINISH], o[FINISH_END]);
    c.text(C_error_category, b, o[ERROR_CATEGORY], o[ERROR_CATEGORY_END]);
    c.real(C_started_at, o[STARTED_AT]);
    c.real(C_completed_at, o[COMPLETED_AT]);
    c.real(C_latency_ms, o[LATENCY_MS]);
    c.real(C_ttft_ms, o[TTFT_MS]);
    c.rows++;
    totals.add(o, b);
    callIndex++;
    return true;
  }
};

// --- the binding ---------------------------------------------------------------------------------------

struct Instance {
  napi_ref outRef = nullptr;
  double* out = nullptr;
  std::vector<ShallowConfig> shallow;
  FileReader files;
};

void finalizeInstance(napi_env env, void* data, void*) {
  auto* inst = static_cast<Instance*>(data);
  if (inst->outRef) napi_delete_reference(env, inst->outRef);
  delete inst;
}

napi_value throwError(napi_env env, const char* message) {
  napi_throw_type_error(env, nullptr, message);
  return nullptr;
}

// setOutput(Float64Array of SLOTS): where scanCapture writes. Held for the life of the module instance.
napi_value SetOutput(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value arg;
  napi_get_cb_info(env, info, &argc, &arg, nullptr, nullptr);
  bool isTyped = false;
  if (argc < 1 || napi_is_typedarray(env, arg, &isTyped) != napi_ok || !isTyped) return throwError(env, "setOutput: a Float64Array");
  napi_typedarray_type type;
  size_t length;
  void* data;
  napi_get_typedarray_info(env, arg, &type, &length, &data, nullptr, nullptr);
  if (type != napi_float64_array || length < SLOTS) return throwError(env, "setOutput: a Float64Array of at least SLOTS values");
  Instance* inst;
  napi_get_instance_data(env, reinterpret_cast<void**>(&inst));
  if (inst->outRef) napi_delete_reference(env, inst->outRef);
  napi_create_reference(env, arg, 1, &inst->outRef);
  inst->out = static_cast<double*>(data);
  return nullptr;
}

// scanCapture(line: Uint8Array): true with the output filled, or false (declined).
napi_value ScanCapture(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value arg;
  napi_get_cb_info(env, info, &argc, &arg, nullptr, nullptr);
  Instance* inst;
  napi_get_instance_data(env, reinterpret_cast<void**>(&inst));
  if (!inst->out) return throwError(env, "scanCapture: setOutput first");
  napi_typedarray_type type;
  size_t length;
  void* data;
  if (argc < 1 || napi_get_typedarray_info(env, arg, &type, &length, &data, nullptr, nullptr) != napi_ok || type != napi_uint8_array) {
    return throwError(env, "scanCapture: a Uint8Array");
  }
  Scan scan(static_cast<const uint8_t*>(data), length, inst->out);
  napi_value result;
  napi_get_boolean(env, length > 0 && scan.run(), &result);
  return result;
}

// skipContainer(bytes: Uint8Array, i: number, depth: number): the end of the container opening at i, walked by
// structure only exactly as json-skip.ts's skippedContainerEndJs walks it, or -1.
napi_value SkipContainer(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value args[3];
  napi_get_cb_info(env, info, &argc, args, nullptr, nullptr);
  napi_typedarray_type type;
  size_t length;
  void* data;
  int64_t i = 0;
  int32_t depth = 0;
  if (argc < 3 || napi_get_typedarray_info(env, args[0], &type, &length, &data, nullptr, nullptr) != napi_ok || type != napi_uint8_array ||
      napi_get_value_int64(env, args[1], &i) != napi_ok || napi_get_value_int32(env, args[2], &depth) != napi_ok) {
    return throwError(env, "skipContainer: (Uint8Array, index, depth)");
  }
  double end = -1;
  if (i >= 0 && (size_t)i < length && depth >= 0 && depth < MAX_DEPTH) {
    uint8_t c = static_cast<const uint8_t*>(data)[i];
    if (c == '{' || c == '[') {
      Scan scan(static_cast<const uint8_t*>(data), length, nullptr);
      size_t e = scan.skippedContainer((size_t)i, depth);
      if (e != NO) end = (double)e;
    }
  }
  napi_value result;
  napi_create_double(env, end, &result);
  return result;
}


// shallowConfig(spec: string): an id for scanShallow. The spec: "count parent.key" on its first line (or an empty
// line), then one line per shallow key: the key, a tab, its kept keys joined by commas.
napi_value ShallowConfigure(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value arg;
  napi_get_cb_info(env, info, &argc, &arg, nullptr, nullptr);
  size_t len;
  if (argc < 1 || napi_get_value_string_utf8(env, arg, nullptr, 0, &len) != napi_ok) return throwError(env, "shallowConfig: a spec string");
  std::string spec(len, '\0');
  napi_get_value_string_utf8(env, arg, &spec[0], len + 1, &len);
  ShallowConfig config;
  size_t pos = 0;
  bool firstLine = true;
  while (pos <= spec.size()) {
    size_t nl = spec.find('\n', pos);
    if (nl == std::string::npos) nl = spec.size();
    std::string line = spec.substr(pos, nl - pos);
    pos = nl + 1;
    if (firstLine) {
      firstLine = false;
      size_t dot = line.find('.');
      if (dot != std::string::npos && dot > 0) {
        config.countParent = line.substr(0, dot);
        config.countKey = line.substr(dot + 1);
      }
      continue;
    }
    if (line.empty()) continue;
    size_t tab = line.find('\t');
    ShallowConfig::Entry entry;
    entry.key = line.substr(0, tab);
    if (tab != std::string::npos) {
      std::string rest = line.substr(tab + 1);
      size_t p = 0;
      while (p < rest.size()) {
        size_t comma = rest.find(',', p);
        if (comma == std::string::npos) comma = rest.size();
        if (comma > p) entry.keep.push_back(rest.substr(p, comma - p));
        p = comma + 1;
      }
    }
    config.entries.push_back(entry);
  }
  Instance* inst;
  napi_get_instance_data(env, reinterpret_cast<void**>(&inst));
  inst->shallow.push_back(config);
  napi_value id;
  napi_create_uint32(env, (uint32_t)(inst->shallow.size() - 1), &id);
  return id;
}

// scanShallow(line: Uint8Array, config: number, dst: Uint8Array (at least the line's length), meta: Float64Array(1)):
// the reduced text's length in dst with meta[0] the counted objects (-1: null), or -1 to decline.
napi_value ScanShallow(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value args[4];
  napi_get_cb_info(env, info, &argc, args, nullptr, nullptr);
  napi_typedarray_type t0, t2, t3;
  size_t n, dstLen, metaLen;
  void *data, *dst, *meta;
  uint32_t id;
  Instance* inst;
  napi_get_instance_data(env, reinterpret_cast<void**>(&inst));
  if (argc < 4 || napi_get_typedarray_info(env, args[0], &t0, &n, &data, nullptr, nullptr) != napi_ok || t0 != napi_uint8_array ||
      napi_get_value_uint32(env, args[1], &id) != napi_ok || id >= inst->shallow.size() ||
      napi_get_typedarray_info(env, args[2], &t2, &dstLen, &dst, nullptr, nullptr) != napi_ok || t2 != napi_uint8_array || dstLen < n ||
      napi_get_typedarray_info(env, args[3], &t3, &metaLen, &meta, nullptr, nullptr) != napi_ok || t3 != napi_float64_array || metaLen < 1) {
    return throwError(env, "scanShallow: (Uint8Array, config id, Uint8Array as long as the line, Float64Array)");
  }
  Shallow scan(static_cast<const uint8_t*>(data), n, static_cast<uint8_t*>(dst));
  size_t len = scan.run(inst->shallow[id]);
  static_cast<double*>(meta)[0] = scan.counted;
  napi_value result;
  napi_create_double(env, len == NO ? -1 : (double)len, &result);
  return result;
}

// readCaptureFile(path: string, meta: Float64Array of META_COUNT): a status (0 absent, 1 unopenable, 2 declined), or,
// read, the rollout's three tag lists (model servers, dialects, error categories; null for none) with `meta` filled
// and the file's calls appended to this thread's columns (takeCalls).
napi_value ReadCaptureFile(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value args[2];
  napi_get_cb_info(env, info, &argc, args, nullptr, nullptr);
  Instance* inst;
  napi_get_instance_data(env, reinterpret_cast<void**>(&inst));
  size_t len;
  napi_typedarray_type type;
  size_t metaLen;
  void* meta;
  if (argc < 2 || napi_get_value_string_utf8(env, args[0], nullptr, 0, &len) != napi_ok ||
      napi_get_typedarray_info(env, args[1], &type, &metaLen, &meta, nullptr, nullptr) != napi_ok || type != napi_float64_array || metaLen < META_COUNT) {
    return throwError(env, "readCaptureFile: (path, Float64Array of META_COUNT)");
  }
  std::string path(len, '\0');
  napi_get_value_string_utf8(env, args[0], &path[0], len + 1, &len);
  napi_value result;
  if (path.find('\0') != std::string::npos) {
    napi_create_uint32(env, R_DECLINED, &result);
    return result;
  }
  std::string tags[3];
  ReadStatus status = inst->files.read(path.c_str(), static_cast<double*>(meta), tags);
  if (status != R_READ) {
    napi_create_uint32(env, status, &result);
    return result;
  }
  napi_create_array_with_length(env, 3, &result);
  for (uint32_t k = 0; k < 3; k++) {
    napi_value tag;
    if (tags[k].empty()) napi_get_null(env, &tag);
    else napi_create_string_utf8(env, tags[k].data(), tags[k].size(), &tag);
    napi_set_element(env, result, k, tag);
  }
  return result;
}

// takeCalls(): [rows, ArrayBuffer] of the calls appended since the last take (encodeColumns' layout), then empty.
napi_value TakeCalls(napi_env env, napi_callback_info) {
  Instance* inst;
  napi_get_instance_data(env, reinterpret_cast<void**>(&inst));
  CallColumns& calls = inst->files.calls;
  void* data;
  napi_value buffer, rows, result;
  napi_create_arraybuffer(env, calls.bytes(), &data, &buffer);
  calls.write(static_cast<uint8_t*>(data));
  napi_create_double(env, (double)calls.rows, &rows);
  calls.clear();
  napi_create_array_with_length(env, 2, &result);
  napi_set_element(env, result, 0, rows);
  napi_set_element(env, result, 1, buffer);
  return result;
}

// dropCalls(): the calls appended since the last take, dropped.
napi_value DropCalls(napi_env env, napi_callback_info) {
  Instance* inst;
  napi_get_instance_data(env, reinterpret_cast<void**>(&inst));
  inst->files.calls.clear();
  return nullptr;
}


// exports[key]: the names, in order, as an array of strings.
void exportNames(napi_env env, napi_value exports, const char* key, const char* const* names, uint32_t count) {
  napi_value list, name;
  napi_create_array_with_length(env, count, &list);
  for (uint32_t k = 0; k < count; k++) {
    napi_create_string_utf8(env, names[k], NAPI_AUTO_LENGTH, &name);
    napi_set_element(env, list, k, name);
  }
  napi_set_named_property(env, exports, key, list);
}

}  // namespace

NAPI_MODULE_INIT() {
  auto* inst = new Instance();
  napi_set_instance_data(env, inst, finalizeInstance, nullptr);
  const struct {
    const char* name;
    napi_callback fn;
  } functions[] = {
      {"setOutput", SetOutput},           {"scanCapture", ScanCapture},   {"skipContainer", SkipContainer},
      {"shallowConfig", ShallowConfigure}, {"scanShallow", ScanShallow},   {"readCaptureFile", ReadCaptureFile},
      {"takeCalls", TakeCalls},           {"dropCalls", DropCalls},
  };
  for (const auto& f : functions) {
    napi_value fn;
    napi_create_function(env, f.name, NAPI_AUTO_LENGTH, f.fn, nullptr, &fn);
    napi_set_named_property(env, exports, f.name, fn);
  }
  exportNames(env, exports, "slotNames", SLOT_NAMES, SLOTS);
  exportNames(env, exports, "callColumns", COLUMN_NAME, CALL_COLUMN_COUNT);
  napi_value metaCount;
  napi_create_uint32(env, META_COUNT, &metaCount);
  napi_set_named_property(env, exports, "metaCount", metaCount);
  // Bumped with every change of the exports or of what they answer (lib/index/scan/addon.ts: NATIVE_VERSION).
  napi_value version;
  napi_create_uint32(env, 3, &version);
  napi_set_named_property(env, exports, "version", version);
  return exports;
}
