// simdjson behind a plain C API. The DOM parser validates every byte of a document
// (On-Demand alone would skip malformed parts it never visits); On-Demand is used only
// to find the raw text of nested objects that must be kept byte-exact.
#include "CRoomJSON.h"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

static_assert(RJ_PADDING >= simdjson::SIMDJSON_PADDING, "RJ_PADDING must cover simdjson's padding");

// An object key and a 64-bit signature of it (its first 8 bytes, its length in the top byte's
// place when shorter): keys are compared by signature first, by bytes only on a match.
struct key_entry {
    std::string_view key;
    uint64_t sig;
};

struct rj_parser {
    simdjson::dom::parser dom;
    simdjson::ondemand::parser ondemand;
    std::vector<uint8_t> padded;  // copy of an input that came without padding
    std::vector<double> surfaces;
    std::vector<double> objects;
    std::vector<int32_t> corner_counts;
    std::vector<double> corners;
    std::string strings;
    std::vector<int32_t> object_categories;
    std::vector<int32_t> section_labels;
    std::vector<key_entry> keys;  // scratch for the duplicate-key walk
    // The `room` object of the record parsed last (in `dom`), for rj_parse_record_room.
    simdjson::dom::element record_room;
    bool has_record_room = false;
};

extern "C" rj_parser *rj_parser_create(void) {
    try { return new rj_parser(); } catch (...) { return nullptr; }
}

extern "C" void rj_parser_destroy(rj_parser *parser) { delete parser; }

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

// Returns a pointer to `len` bytes followed by at least simdjson::SIMDJSON_PADDING readable bytes.
const uint8_t *padded_input(rj_parser *p, const uint8_t *buf, size_t len, size_t capacity) {
    if (capacity >= len + simdjson::SIMDJSON_PADDING) return buf;
    p->padded.resize(len + simdjson::SIMDJSON_PADDING);
    std::memcpy(p->padded.data(), buf, len);
    std::memset(p->padded.data() + len, 0, simdjson::SIMDJSON_PADDING);
    return p->padded.data();
}

// Whether `token` is a JSON number by the grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
bool is_json_number(std::string_view t) {
    size_t i = 0, n = t.size();
    auto digits = [&] { size_t start = i; while (i < n && t[i] >= '0' && t[i] <= '9') ++i; return i - start; };
    if (i < n && t[i] == '-') ++i;
    if (i < n && t[i] == '0') ++i; else if (digits() == 0) return false;
    if (i < n && t[i] == '.') { ++i; if (digits() == 0) return false; }
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
        if (digits() == 0) return false;
    }
    return i == n;
}

// simdjson reports one NUMBER_ERROR for a malformed number (`01`, `12.5.3`, `1e`, a line cut
// after `-`) and for a well-formed one it cannot represent (`1e999`, a 30-digit integer).
// Only the second is RJ_NUMBER_OUT_OF_RANGE: when every number token is well-formed (and
// followed by a delimiter), the number simdjson refused must have been out of range.
// Runs on the error path only: one pass over the bytes, skipping strings.
int32_t classify_number_error(const uint8_t *in, size_t len) {
    size_t i = 0;
    while (i < len) {
        uint8_t c = in[i];
        if (c == '"') {
            for (++i; i < len && in[i] != '"'; ++i) if (in[i] == '\\') ++i;
            ++i;
            continue;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            size_t start = i;
            // The whole run a number could be confused with, so `0x10` or `1.2.3` is one token.
            while (i < len && (std::isalnum(in[i]) || in[i] == '.' || in[i] == '+' || in[i] == '-')) ++i;
            std::string_view token(reinterpret_cast<const char *>(in + start), i - start);
            if (!is_json_number(token)) return RJ_INVALID_JSON;
            if (i < len && (in[i] == 0 || !std::strchr(" \t\r\n,]}", in[i]))) return RJ_INVALID_JSON;
            continue;
        }
        ++i;
    }
    return RJ_NUMBER_OUT_OF_RANGE;
}

// The message for a parse error classified as `code`.
const char *parse_error_message(simdjson::error_code err, int32_t code) {
    if (err == simdjson::NUMBER_ERROR || err == simdjson::NUMBER_OUT_OF_RANGE) {
        return code == RJ_INVALID_JSON
            ? "malformed number (a leading zero, a second decimal point, a cut-off exponent...)"
            : "number out of range (beyond a finite double, or an integer beyond 64 bits)";
    }
    return simdjson::error_message(err);
}

int32_t map_error(simdjson::error_code code, const uint8_t *in, size_t len) {
    switch (code) {
    case simdjson::UTF8_ERROR: return RJ_INVALID_UTF8;
    case simdjson::NUMBER_ERROR:
    case simdjson::NUMBER_OUT_OF_RANGE: return classify_number_error(in, len);
    case simdjson::MEMALLOC: return RJ_INTERNAL;
    default: return RJ_INVALID_JSON;
    }
}

// Whether some object, anywhere in the document (nested objects and arrays included),
// has a key twice; `dup` is then that key. JSON readers disagree on such
// objects (first wins, last wins, both kept), so a record holding one is invalid JSON.
// Keys are compared unescaped, so "a" and "\u0061" are the same key. `keys` is scratch
// space shared by the whole walk; recursion is bounded by simdjson's depth limit.
inline uint64_t key_signature(std::string_view key) {
    // A fixed 8-byte load (no call): a DOM key lies in simdjson's string buffer, which is
    // allocated with SIMDJSON_PADDING bytes beyond its last string; bytes past the key are masked.
    uint64_t sig;
    std::memcpy(&sig, key.data(), 8);
    if (key.size() < 8) sig &= (uint64_t(1) << (8 * key.size())) - 1;
    return sig ^ (uint64_t(key.size()) << 56);
}

inline bool is_container(const element &e) {
    auto t = e.type();
    return t == element_type::ARRAY || t == element_type::OBJECT;
}

bool find_duplicate_key(const element &e, std::vector<key_entry> &keys, std::string_view &dup) {
    if (e.type() == element_type::ARRAY) {
        for (element child : e.get_array().value_unsafe()) {
            // Scalars (most of a room: transforms, corners) need no call.
            if (is_container(child) && find_duplicate_key(child, keys, dup)) return true;
        }
        return false;
    }
    if (e.type() != element_type::OBJECT) return false;
    simdjson::dom::object obj = e.get_object().value_unsafe();
    size_t start = keys.size();
    for (auto field : obj) keys.push_back({field.key, key_signature(field.key)});
    size_t count = keys.size() - start;
    if (count > 1) {
        if (count <= 32) {
            // Pairs by signature (integer compares); bytes only on a signature match.
            for (size_t a = start; a < keys.size(); ++a)
                for (size_t b = a + 1; b < keys.size(); ++b)
                    if (keys[a].sig == keys[b].sig && keys[a].key == keys[b].key) { dup = keys[a].key; return true; }
        } else {
            std::sort(keys.begin() + long(start), keys.end(),
                      [](const key_entry &x, const key_entry &y) { return x.key < y.key; });
            for (size_t a = start + 1; a < keys.size(); ++a)
                if (keys[a].key == keys[a - 1].key) { dup = keys[a].key; return true; }
        }
    }
    keys.resize(start);
    for (auto field : obj) {
        if (is_container(field.value) && find_duplicate_key(field.value, keys, dup)) return true;
    }
    return false;
}

// Sets an RJ_INVALID_JSON error naming the duplicate key of `root`, if it has one.
bool reject_duplicate_keys(rj_parser *p, const element &root, int32_t *error, char *message) {
    p->keys.clear();
    std::string_view dup;
    try {
        if (!find_duplicate_key(root, p->keys, dup)) return false;
    } catch (...) {
        *error = RJ_INTERNAL;
        std::snprintf(message, 192, "out of memory checking for duplicate keys");
        return true;
    }
    *error = RJ_INVALID_JSON;
    std::snprintf(message, 192, "duplicate key \"%.*s\" in an object", int(std::min<size_t>(dup.size(), 64)), dup.data());
    return true;
}

void set_message(char *dst, const char *fmt, const char *a = "", const char *b = "") {
    std::snprintf(dst, 192, fmt, a, b);
}

// Parses `buf` (through its padded copy, returned in `in`) into `root` and, unless
// `check_duplicates` is false, rejects duplicate keys. On failure sets `*error` and `message`
// and returns the error; RJ_OK otherwise.
int32_t parse_document(rj_parser *p, const uint8_t *buf, size_t len, size_t capacity, const uint8_t *&in,
                       element &root, int32_t *error, char *message, bool check_duplicates = true) {
    in = padded_input(p, buf, len, capacity);
    auto err = p->dom.parse(in, len, false).get(root);
    if (err) {
        *error = map_error(err, in, len);
        set_message(message, "%s", parse_error_message(err, *error));
        return *error;
    }
    if (check_duplicates && reject_duplicate_keys(p, root, error, message)) return *error;
    return RJ_OK;
}

void fill_value(const element &e, rj_value *v) {
    switch (e.type()) {
    case element_type::NULL_VALUE: v->kind = RJ_NULL; break;
    case element_type::BOOL: v->kind = RJ_BOOL; v->boolean = bool(e.get_bool().value_unsafe()); break;
    case element_type::INT64:
        v->kind = RJ_INT; v->integer = e.get_int64().value_unsafe(); v->number = double(v->integer); break;
    case element_type::UINT64: {
        uint64_t u = e.get_uint64().value_unsafe();
        v->kind = RJ_INT; v->integer = u > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(u); v->number = double(u); break;
    }
    case element_type::DOUBLE: {
        double d = e.get_double().value_unsafe();
        v->kind = RJ_DOUBLE; v->number = d;
        v->integer = (std::isfinite(d) && d >= -9.2e18 && d <= 9.2e18) ? int64_t(d) : 0;
        break;
    }
    case element_type::STRING: {
        std::string_view s = e.get_string().value_unsafe();
        v->kind = RJ_STRING; v->bytes = s.data(); v->length = s.size(); break;
    }
    case element_type::OBJECT: v->kind = RJ_OBJECT; break;
    case element_type::ARRAY: v->kind = RJ_ARRAY; break;
    }
}

int record_field_index(std::string_view key) {
    switch (key.size()) {
    case 2: if (key == "id") return RJF_ID; break;
    case 4: if (key == "room") return RJF_ROOM; break;
    case 7: if (key == "summary") return RJF_SUMMARY; break;
    case 8: if (key == "roomName") return RJF_ROOM_NAME; break;
    case 9: if (key == "timestamp") return RJF_TIMESTAMP; break;
    case 10: if (key == "capturedAt") return RJF_CAPTURED_AT; break;
    case 11: if (key == "summaryJSON") return RJF_SUMMARY_JSON; if (key == "objectCount") return RJF_OBJECT_COUNT; break;
    case 12: if (key == "floorAreaSqM") return RJF_FLOOR_AREA; break;
    case 13: if (key == "formatVersion") return RJF_FORMAT_VERSION; break;
    case 14: if (key == "summaryVersion") return RJF_SUMMARY_VERSION; if (key == "ceilingHeightM") return RJF_CEILING_HEIGHT; break;
    case 16: if (key == "fullRoomDataJSON") return RJF_FULL_ROOM_DATA; break;
    default: break;
    }
    if (key == "wallCount") return RJF_WALL_COUNT;
    return -1;
}

}  // namespace

extern "C" int32_t rj_parse_record(rj_parser *p, const uint8_t *buf, size_t len, size_t capacity,
                                   rj_record *out) {
    std::memset(out, 0, sizeof(*out));
    p->has_record_room = false;
    const uint8_t *in;
    element root;
    if (parse_document(p, buf, len, capacity, in, root, &out->error, out->message) != RJ_OK) return out->error;
    simdjson::dom::object obj;
    if (root.get_object().get(obj)) {
        out->error = RJ_NOT_OBJECT;
        set_message(out->message, "the line is JSON but not an object");
        return out->error;
    }
    bool wants_raw = false;
    for (auto field : obj) {
        int idx = record_field_index(field.key);
        if (idx < 0) continue;
        fill_value(field.value, &out->fields[idx]);
        if (out->fields[idx].kind == RJ_OBJECT && (idx == RJF_ROOM || idx == RJF_SUMMARY)) wants_raw = true;
        if (out->fields[idx].kind == RJ_OBJECT && idx == RJF_ROOM) {
            p->record_room = field.value;
            p->has_record_room = true;
        }
    }
    if (!wants_raw) return RJ_OK;
    // The document is already validated; On-Demand now only locates raw object text.
    simdjson::ondemand::document doc;
    if (p->ondemand.iterate(in, len, len + simdjson::SIMDJSON_PADDING).get(doc)) {
        out->error = RJ_INTERNAL; set_message(out->message, "could not re-read the record"); return out->error;
    }
    simdjson::ondemand::object od;
    if (doc.get_object().get(od)) {
        out->error = RJ_INTERNAL; set_message(out->message, "could not re-read the record"); return out->error;
    }
    for (auto field : od) {
        std::string_view key;
        if (field.unescaped_key().get(key)) break;
        int idx = record_field_index(key);
        if ((idx == RJF_ROOM || idx == RJF_SUMMARY) && out->fields[idx].kind == RJ_OBJECT) {
            simdjson::ondemand::object inner;
            std::string_view raw;
            if (field.value().get_object().get(inner) || inner.raw_json().get(raw)) {
                out->error = RJ_INTERNAL; set_message(out->message, "could not locate the raw object"); return out->error;
            }
            // raw_json() runs up to the next structural character, so it also holds the
            // whitespace after the closing brace: the value itself ends at '}'.
            while (!raw.empty() && raw.back() != '}') raw.remove_suffix(1);
            out->fields[idx].bytes = reinterpret_cast<const char *>(raw.data()) - reinterpret_cast<const char *>(in) + reinterpret_cast<const char *>(buf);
            out->fields[idx].length = raw.size();
        }
    }
    return RJ_OK;
}

namespace {

struct RoomError {
    int32_t code;
    std::string message;
};

// A JSON path such as `walls[2].transform[15]`, built as text only when an error needs it
// (building strings for every number would cost more than parsing them).
struct Path {
    const Path *parent = nullptr;
    const char *key = nullptr;
    long index = -1;
    std::string str() const {
        std::string s = parent ? parent->str() : std::string();
        if (key) {
            if (!s.empty()) s += ".";
            s += key;
        }
        if (index >= 0) s += "[" + std::to_string(index) + "]";
        return s;
    }
};

std::string operator+(const Path &path, const char *tail) { return path.str() + tail; }

double number_of(const element &e, const Path &path, RoomError &err) {
    double d;
    if (e.get_double().get(d)) {
        err = {RJ_WRONG_TYPE, path + ": expected a number"};
        return 0;
    }
    if (!std::isfinite(d)) err = {RJ_NON_FINITE, path + ": number is not finite"};
    return d;
}

// Reads a finite number without building its path: false when it is not one, for the caller
// to read it again through number_of, which names what is wrong (the rare path).
inline bool finite_number(const element &e, double &d) {
    return !e.get_double().get(d) && std::isfinite(d);
}

// The members of a room's surface or object that a derive reads, found in one pass over its
// keys instead of a lookup by name each (every lookup scans the keys from the first). The first
// member of each name is kept, as a lookup finds it (a stored room has no duplicate keys).
struct ElementMembers {
    element dimensions, transform, polygon_corners, category;
    bool has_dimensions = false, has_transform = false, has_polygon_corners = false, has_category = false;
};

inline void keep_first(bool &has, element &slot, const element &value) {
    if (!has) { slot = value; has = true; }
}

// Whether `key`, already known to have the literal's length (8 to 16 bytes), is that literal: its
// first and last 8 bytes loaded and compared whole (they overlap below 16), inline. Each element
// has about ten keys, and as many calls to memcmp were 1.3% of a derive's time.
template <size_t N>
inline bool key_is(std::string_view key, const char (&literal)[N]) {
    static_assert(N - 1 >= 8 && N - 1 <= 16, "two 8-byte loads cover 8 to 16 bytes");
    uint64_t a, b, x, y;
    std::memcpy(&a, key.data(), 8);
    std::memcpy(&b, key.data() + (N - 1) - 8, 8);
    std::memcpy(&x, literal, 8);
    std::memcpy(&y, literal + (N - 1) - 8, 8);
    return a == x && b == y;
}

void find_members(const simdjson::dom::object &obj, ElementMembers &m) {
    for (auto field : obj) {
        std::string_view key = field.key;
        switch (key.size()) {
        case 8: if (key_is(key, "category")) keep_first(m.has_category, m.category, field.value); break;
        case 9: if (key_is(key, "transform")) keep_first(m.has_transform, m.transform, field.value); break;
        case 10: if (key_is(key, "dimensions")) keep_first(m.has_dimensions, m.dimensions, field.value); break;
        case 14:
            if (key_is(key, "polygonCorners")) keep_first(m.has_polygon_corners, m.polygon_corners, field.value);
            break;
        default: break;
        }
    }
}

// Reads `dimensions` (3 numbers, none negative) and `transform` (16 numbers) into dst; `m` gets
// the element's members.
bool read_element(const element &e, const Path &path, double *dst, ElementMembers &m, RoomError &err) {
    simdjson::dom::object obj;
    if (e.get_object().get(obj)) { err = {RJ_WRONG_TYPE, path + ": expected an object"}; return false; }
    find_members(obj, m);
    simdjson::dom::array dims, transform;
    if (!m.has_dimensions) { err = {RJ_MISSING_KEY, path + ".dimensions is missing"}; return false; }
    if (m.dimensions.get_array().get(dims)) {
        err = {RJ_WRONG_TYPE, path + ".dimensions: expected an array"};
        return false;
    }
    if (dims.size() != 3) {
        err = {RJ_BAD_DIMENSIONS, path + ".dimensions: expected 3 numbers, found " + std::to_string(dims.size())};
        return false;
    }
    int i = 0;
    for (element d : dims) {
        if (simdjson_unlikely(!finite_number(d, dst[i]))) {
            dst[i] = number_of(d, Path{&path, "dimensions", i}, err);
            return false;
        }
        if (dst[i] < 0) { err = {RJ_NEGATIVE_DIMENSION, Path{&path, "dimensions", i} + " is negative"}; return false; }
        ++i;
    }
    if (!m.has_transform) { err = {RJ_MISSING_KEY, path + ".transform is missing"}; return false; }
    if (m.transform.get_array().get(transform)) {
        err = {RJ_WRONG_TYPE, path + ".transform: expected an array"};
        return false;
    }
    if (transform.size() != 16) {
        err = {RJ_BAD_TRANSFORM, path + ".transform: expected 16 numbers, found " + std::to_string(transform.size())};
        return false;
    }
    i = 0;
    for (element t : transform) {
        if (simdjson_unlikely(!finite_number(t, dst[3 + i]))) {
            dst[3 + i] = number_of(t, Path{&path, "transform", i}, err);
            if (err.code == RJ_WRONG_TYPE) err.code = RJ_BAD_TRANSFORM;
            return false;
        }
        ++i;
    }
    return true;
}

// The first key of a one-key category object such as {"chair":{}}.
bool category_key(const ElementMembers &m, const Path &path, std::string_view &key, RoomError &err) {
    simdjson::dom::object cat;
    if (!m.has_category) { err = {RJ_MISSING_KEY, path + ".category is missing"}; return false; }
    if (m.category.get_object().get(cat)) {
        // Tolerate a plain string category (not what JSONEncoder writes, but unambiguous).
        if (m.category.get_string().get(key) == simdjson::SUCCESS) return true;
        err = {RJ_WRONG_TYPE, path + ".category: expected an object"}; return false;
    }
    for (auto f : cat) { key = f.key; return true; }
    err = {RJ_WRONG_TYPE, path + ".category is empty"};
    return false;
}

// An optional array member found by its key (`present`: it was). Returns false (with err set)
// when present but not an array.
bool optional_array(const element &value, bool present, const char *name, simdjson::dom::array &arr, RoomError &err) {
    if (!present) return true;
    if (value.get_array().get(arr)) { err = {RJ_WRONG_TYPE, std::string(name) + ": expected an array"}; return false; }
    return true;
}

// The room's top-level arrays a derive reads, by index: the surface kinds in rj_surface_kind's
// order, then objects and sections. Found in one pass over the room's keys (the first of each
// name, as a lookup finds it).
enum { ROOM_OBJECTS = RJS_KIND_COUNT, ROOM_SECTIONS, ROOM_MEMBER_COUNT };
const char *const room_member_names[ROOM_MEMBER_COUNT] = {"walls", "doors", "windows", "openings", "floors",
                                                          "objects", "sections"};

int room_member_index(std::string_view key) {
    switch (key.size()) {
    case 5: if (key == "walls") return RJS_WALLS; if (key == "doors") return RJS_DOORS; break;
    case 6: if (key == "floors") return RJS_FLOORS; break;
    case 7:
        if (key == "windows") return RJS_WINDOWS;
        if (key == "objects") return ROOM_OBJECTS;
        break;
    case 8:
        if (key == "openings") return RJS_OPENINGS;
        if (key == "sections") return ROOM_SECTIONS;
        break;
    default: break;
    }
    return -1;
}

int32_t parse_room(rj_parser *p, const element &root, rj_room *out) {
    RoomError err{0, {}};
    simdjson::dom::object obj;
    element members[ROOM_MEMBER_COUNT];
    bool present[ROOM_MEMBER_COUNT] = {};
    if (root.get_object().get(obj)) {
        err = {RJ_NOT_OBJECT, "the room is JSON but not an object"};
    } else {
        for (auto field : obj) {
            int m = room_member_index(field.key);
            if (m >= 0 && !present[m]) { members[m] = field.value; present[m] = true; }
        }
    }
    p->surfaces.clear(); p->objects.clear(); p->corner_counts.clear(); p->corners.clear();
    p->strings.clear(); p->object_categories.clear(); p->section_labels.clear();
    for (int k = 0; k < RJS_KIND_COUNT && !err.code; ++k) {
        simdjson::dom::array arr;
        if (!optional_array(members[k], present[k], room_member_names[k], arr, err)) break;
        int32_t count = 0;
        if (present[k]) {
            for (element e : arr) {
                Path path{nullptr, room_member_names[k], count};
                size_t at = p->surfaces.size();
                p->surfaces.resize(at + RJ_ELEMENT_STRIDE);
                ElementMembers m;
                if (!read_element(e, path, p->surfaces.data() + at, m, err)) break;
                if (k == RJS_FLOORS) {
                    simdjson::dom::array corners;
                    if (!optional_array(m.polygon_corners, m.has_polygon_corners, "polygonCorners", corners, err)) {
                        err.message = path + "." + err.message;
                        break;
                    }
                    int32_t n = 0;
                    if (m.has_polygon_corners) {
                        for (element c : corners) {
                            simdjson::dom::array xyz;
                            if (c.get_array().get(xyz) || xyz.size() < 2 || xyz.size() > 3) {
                                err = {RJ_WRONG_TYPE, Path{&path, "polygonCorners", n} + ": expected 2 or 3 numbers"};
                                break;
                            }
                            double pt[3] = {0, 0, 0};
                            int j = 0;
                            for (element x : xyz) {
                                if (simdjson_unlikely(!finite_number(x, pt[j]))) {
                                    number_of(x, Path{&path, "polygonCorners", n}, err);
                                    break;
                                }
                                ++j;
                            }
                            if (err.code) break;
                            p->corners.insert(p->corners.end(), pt, pt + 3);
                            ++n;
                        }
                    }
                    if (err.code) break;
                    p->corner_counts.push_back(n);
                }
                ++count;
            }
        }
        out->surface_counts[k] = count;
    }
    if (!err.code) {
        simdjson::dom::array arr;
        int32_t count = 0;
        if (optional_array(members[ROOM_OBJECTS], present[ROOM_OBJECTS], "objects", arr, err) &&
            present[ROOM_OBJECTS]) {
            for (element e : arr) {
                Path path{nullptr, "objects", count};
                size_t at = p->objects.size();
                p->objects.resize(at + RJ_ELEMENT_STRIDE);
                ElementMembers m;
                if (!read_element(e, path, p->objects.data() + at, m, err)) break;
                std::string_view key;
                if (!category_key(m, path, key, err)) break;
                p->object_categories.push_back(int32_t(p->strings.size()));
                p->object_categories.push_back(int32_t(key.size()));
                p->strings.append(key);
                ++count;
            }
        }
        out->object_count = count;
    }
    if (!err.code) {
        simdjson::dom::array arr;
        int32_t count = 0;
        if (optional_array(members[ROOM_SECTIONS], present[ROOM_SECTIONS], "sections", arr, err) &&
            present[ROOM_SECTIONS]) {
            for (element e : arr) {
                simdjson::dom::object s;
                std::string_view label;
                element lv;
                if (e.get_object().get(s)) { err = {RJ_WRONG_TYPE, "sections[" + std::to_string(count) + "]: expected an object"}; break; }
                if (s["label"].get(lv) || lv.get_string().get(label)) {
                    p->section_labels.push_back(-1);
                    p->section_labels.push_back(0);
                } else {
                    p->section_labels.push_back(int32_t(p->strings.size()));
                    p->section_labels.push_back(int32_t(label.size()));
                    p->strings.append(label);
                }
                ++count;
            }
        }
        out->section_count = count;
    }
    if (err.code) {
        out->error = err.code;
        std::snprintf(out->message, sizeof(out->message), "%s", err.message.c_str());
        return out->error;
    }
    out->surfaces = p->surfaces.data();
    out->objects = p->objects.data();
    out->floor_corner_counts = p->corner_counts.data();
    out->floor_corners = p->corners.data();
    out->strings = p->strings.data();
    out->object_categories = p->object_categories.data();
    out->section_labels = p->section_labels.data();
    return RJ_OK;
}

int32_t parse_room_document(rj_parser *p, const uint8_t *buf, size_t len, size_t capacity, rj_room *out,
                            bool check_duplicates) {
    std::memset(out, 0, sizeof(*out));
    try {
        const uint8_t *in;
        element root;
        if (parse_document(p, buf, len, capacity, in, root, &out->error, out->message, check_duplicates) != RJ_OK)
            return out->error;
        return parse_room(p, root, out);
    } catch (...) {
        out->error = RJ_INTERNAL;
        set_message(out->message, "room: out of memory");
        return out->error;
    }
}

}  // namespace

extern "C" int32_t rj_parse_room(rj_parser *p, const uint8_t *buf, size_t len, size_t capacity, rj_room *out) {
    return parse_room_document(p, buf, len, capacity, out, true);
}

extern "C" int32_t rj_parse_room_stored(rj_parser *p, const uint8_t *buf, size_t len, size_t capacity,
                                        rj_room *out) {
    return parse_room_document(p, buf, len, capacity, out, false);
}

namespace {

// The end of the string whose opening quote is at `start`: the first '"' preceded by an even run
// of backslashes (memchr keeps this at memory speed over the ~100 KB coreModel); `len` if none.
size_t closing_quote(const uint8_t *in, size_t len, size_t start) {
    size_t end = start + 1;
    while (true) {
        const void *hit = end < len ? std::memchr(in + end, '"', len - end) : nullptr;
        if (!hit) return len;
        end = size_t(static_cast<const uint8_t *>(hit) - in);
        size_t slashes = 0;
        while (end - slashes > start + 1 && in[end - slashes - 1] == '\\') ++slashes;
        if (slashes % 2 == 0) return end;
        ++end;
    }
}

bool is_json_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The object's first member when its key is written plainly as `key` ({"key": ...): 1 with the
// string value's place, 0 when that value is not a string, -1 when the first key is another one
// (or written with escapes), for the full walk to decide. In a valid object without duplicate
// keys the first member so named is the only one: the full walk finds the same.
int32_t first_member_string(const uint8_t *in, size_t len, std::string_view key, size_t *offset, size_t *length) {
    size_t i = 0;
    auto skip = [&] { while (i < len && is_json_space(in[i])) ++i; };
    skip();
    if (i >= len || in[i] != '{') return -1;
    ++i;
    skip();
    if (len - i < key.size() + 2 || in[i] != '"' || std::memcmp(in + i + 1, key.data(), key.size()) != 0 ||
        in[i + 1 + key.size()] != '"')
        return -1;
    i += key.size() + 2;
    skip();
    if (i >= len || in[i] != ':') return -1;
    ++i;
    skip();
    if (i >= len || in[i] != '"') return 0;
    size_t end = closing_quote(in, len, i);
    if (end == len) return 0;
    *offset = i + 1;
    *length = end - (i + 1);
    return 1;
}

}  // namespace

extern "C" int32_t rj_parse_record_room(rj_parser *p, rj_room *out) {
    std::memset(out, 0, sizeof(*out));
    if (!p->has_record_room) {
        out->error = RJ_INTERNAL;
        set_message(out->message, "no record's room to read");
        return out->error;
    }
    p->has_record_room = false;  // one use: the next call on the parser may reuse the DOM
    try {
        return parse_room(p, p->record_room, out);
    } catch (...) {
        out->error = RJ_INTERNAL;
        set_message(out->message, "room: out of memory");
        return out->error;
    }
}

extern "C" int32_t rj_find_string_member(rj_parser *p, const uint8_t *buf, size_t len, size_t capacity,
                                         const char *key, size_t *offset, size_t *length) {
    try {
        // Most rooms begin with their coreModel: found without a structural pass over the room.
        int32_t first = first_member_string(buf, len, std::string_view(key), offset, length);
        if (first >= 0) return first;
        const uint8_t *in = padded_input(p, buf, len, capacity);
        simdjson::ondemand::document doc;
        simdjson::ondemand::object obj;
        if (p->ondemand.iterate(in, len, len + simdjson::SIMDJSON_PADDING).get(doc) || doc.get_object().get(obj)) return 0;
        std::string_view wanted(key);
        for (auto field : obj) {
            simdjson::ondemand::raw_json_string k;
            if (field.key().get(k)) return 0;
            if (!k.unsafe_is_equal(wanted)) continue;
            std::string_view token;
            simdjson::ondemand::value v;
            if (field.value().get(v) || v.type().value_unsafe() != simdjson::ondemand::json_type::string) return 0;
            token = v.raw_json_token();
            // The token is the quoted string (possibly followed by whitespace): strip quotes.
            size_t start = size_t(reinterpret_cast<const uint8_t *>(token.data()) - in);
            size_t end = closing_quote(in, len, start);
            if (end == len) return 0;
            *offset = start + 1;
            *length = end - (start + 1);
            return 1;
        }
        return 0;
    } catch (...) {
        return 0;
    }
}

namespace {

// Per position in a group of four characters, each character's 6 bits already shifted into
// place, and bit 24 for a character outside the alphabet: a group is one OR of four lookups.
struct Base64Tables {
    uint32_t shifted[4][256];
};

const Base64Tables &base64_tables() {
    static const Base64Tables tables = [] {
        Base64Tables t;
        const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (int k = 0; k < 4; ++k) {
            for (int c = 0; c < 256; ++c) t.shifted[k][c] = 1u << 24;
            for (uint32_t v = 0; v < 64; ++v) t.shifted[k][uint8_t(alphabet[v])] = v << (18 - 6 * k);
        }
        return t;
    }();
    return tables;
}

}  // namespace

extern "C" int64_t rj_base64_decode(const char *in, size_t len, uint8_t *out) {
    const Base64Tables &t = base64_tables();
    while (len > 0 && in[len - 1] == '=') --len;   // padding is optional
    if (len % 4 == 1) return -1;
    const uint8_t *s = reinterpret_cast<const uint8_t *>(in);
    size_t o = 0, i = 0;
    // 32 characters at a time, checked once: each group stores 4 bytes (the 4th is overwritten
    // by the next group, or lies within `out`'s (len / 4 + 1) * 3 bytes past the last).
    for (; i + 32 <= len; i += 32) {
        uint32_t seen = 0;
        for (int g = 0; g < 8; ++g) {
            const uint8_t *q = s + i + 4 * g;
            uint32_t v = t.shifted[0][q[0]] | t.shifted[1][q[1]] | t.shifted[2][q[2]] | t.shifted[3][q[3]];
            seen |= v;
            uint8_t bytes[4] = {uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v), 0};
            std::memcpy(out + o + 3 * g, bytes, 4);
        }
        if (seen >> 24) return -1;
        o += 24;
    }
    for (; i + 4 <= len; i += 4) {
        uint32_t v = t.shifted[0][s[i]] | t.shifted[1][s[i + 1]] | t.shifted[2][s[i + 2]] | t.shifted[3][s[i + 3]];
        if (v >> 24) return -1;
        out[o++] = uint8_t(v >> 16); out[o++] = uint8_t(v >> 8); out[o++] = uint8_t(v);
    }
    size_t rest = len - i;
    if (rest >= 2) {
        uint32_t v = t.shifted[0][s[i]] | t.shifted[1][s[i + 1]] | (rest == 3 ? t.shifted[2][s[i + 2]] : 0);
        if (v >> 24) return -1;
        out[o++] = uint8_t(v >> 16);
        if (rest == 3) out[o++] = uint8_t(v >> 8);
    }
    return int64_t(o);
}

// XXH64 (public-domain algorithm by Yann Collet), two lanes with different seeds.
namespace {
constexpr uint64_t P1 = 11400714785074694791ULL, P2 = 14029467366897019727ULL, P3 = 1609587929392839161ULL,
                   P4 = 9650029242287828579ULL, P5 = 2870177450012600261ULL;
inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline uint64_t read64(const uint8_t *p) { uint64_t v; std::memcpy(&v, p, 8); return v; }
inline uint32_t read32(const uint8_t *p) { uint32_t v; std::memcpy(&v, p, 4); return v; }
inline uint64_t round1(uint64_t acc, uint64_t input) { acc += input * P2; acc = rotl(acc, 31); return acc * P1; }
inline uint64_t merge(uint64_t acc, uint64_t val) { val = round1(0, val); acc ^= val; return acc * P1 + P4; }

uint64_t xxh64(const uint8_t *p, size_t len, uint64_t seed) {
    const uint8_t *end = p + len;
    uint64_t h;
    if (len >= 32) {
        uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
        const uint8_t *limit = end - 32;
        do {
            v1 = round1(v1, read64(p)); v2 = round1(v2, read64(p + 8));
            v3 = round1(v3, read64(p + 16)); v4 = round1(v4, read64(p + 24));
            p += 32;
        } while (p <= limit);
        h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
        h = merge(h, v1); h = merge(h, v2); h = merge(h, v3); h = merge(h, v4);
    } else {
        h = seed + P5;
    }
    h += uint64_t(len);
    while (p + 8 <= end) { h ^= round1(0, read64(p)); h = rotl(h, 27) * P1 + P4; p += 8; }
    if (p + 4 <= end) { h ^= uint64_t(read32(p)) * P1; h = rotl(h, 23) * P2 + P3; p += 4; }
    while (p < end) { h ^= (*p) * P5; h = rotl(h, 11) * P1; ++p; }
    h ^= h >> 33; h *= P2; h ^= h >> 29; h *= P3; h ^= h >> 32;
    return h;
}
}  // namespace

extern "C" void rj_hash128(const uint8_t *buf, size_t len, uint64_t seed, uint64_t out[2]) {
    out[0] = xxh64(buf, len, seed);
    out[1] = xxh64(buf, len, seed ^ 0x9E3779B97F4A7C15ULL);
}
