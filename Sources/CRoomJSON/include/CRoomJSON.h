/// A plain C interface over simdjson for Rederive: full-validating parsing of export
/// records and raw rooms, with the few fields the pipeline needs extracted into flat
/// buffers. One `rj_parser` per worker thread; it is not thread-safe.
#ifndef CROOMJSON_H
#define CROOMJSON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Spare bytes a caller should keep readable after each input buffer so that the
/// parser can read it in place (otherwise it copies the input once).
#define RJ_PADDING 64

typedef struct rj_parser rj_parser;

rj_parser *rj_parser_create(void);
void rj_parser_destroy(rj_parser *parser);

/// Error classes shared by record and room parsing.
typedef enum {
    RJ_OK = 0,
    RJ_INVALID_JSON = 1,      ///< not JSON at all (syntax)
    RJ_INVALID_UTF8 = 2,      ///< the bytes are not valid UTF-8
    RJ_NOT_OBJECT = 3,        ///< valid JSON whose root is not an object
    RJ_NUMBER_OUT_OF_RANGE = 4, ///< a number that does not fit a finite double
    RJ_MISSING_KEY = 5,
    RJ_WRONG_TYPE = 6,
    RJ_BAD_TRANSFORM = 7,     ///< a transform that is not 16 numbers
    RJ_BAD_DIMENSIONS = 8,    ///< dimensions that are not 3 numbers
    RJ_NEGATIVE_DIMENSION = 9,
    RJ_NON_FINITE = 10,
    RJ_INTERNAL = 11,
} rj_error;

/// The JSON type of an extracted value.
typedef enum {
    RJ_MISSING = 0, RJ_NULL, RJ_BOOL, RJ_INT, RJ_DOUBLE, RJ_STRING, RJ_OBJECT, RJ_ARRAY
} rj_kind;

/// One extracted value. `bytes`/`length`: for a string, its unescaped UTF-8 (owned by
/// the parser, valid until its next call); for an object or array, its raw JSON text as it
/// stands in the input buffer. `number` holds every numeric value as a double.
typedef struct {
    int32_t kind;
    int32_t boolean;
    int64_t integer;
    double number;
    const char *bytes;
    size_t length;
} rj_value;

/// The top-level keys of an export record (every format version) that the pipeline reads.
typedef enum {
    RJF_FORMAT_VERSION = 0, RJF_ID, RJF_ROOM_NAME, RJF_CAPTURED_AT, RJF_TIMESTAMP,
    RJF_FULL_ROOM_DATA, RJF_SUMMARY_JSON, RJF_SUMMARY, RJF_SUMMARY_VERSION, RJF_ROOM,
    RJF_FLOOR_AREA, RJF_CEILING_HEIGHT, RJF_WALL_COUNT, RJF_OBJECT_COUNT,
    RJF_COUNT
} rj_record_field;

typedef struct {
    int32_t error;          ///< rj_error
    char message[192];      ///< what is wrong, when error != RJ_OK
    rj_value fields[RJF_COUNT];
} rj_record;

/// Validates `buf` as one JSON document (the whole of it) and extracts the record keys.
/// `capacity` is how many bytes are readable from `buf` (>= len + RJ_PADDING avoids a copy).
int32_t rj_parse_record(rj_parser *parser, const uint8_t *buf, size_t len, size_t capacity,
                        rj_record *out);

/// Surface kinds, in the order their elements are laid out in `rj_room.surfaces`.
typedef enum { RJS_WALLS = 0, RJS_DOORS, RJS_WINDOWS, RJS_OPENINGS, RJS_FLOORS, RJS_KIND_COUNT } rj_surface_kind;

/// Doubles per surface or object in the flat arrays: 3 dimensions then 16 transform values.
#define RJ_ELEMENT_STRIDE 19

/// What a derivation needs of a raw CapturedRoom. Pointers are owned by the parser and
/// valid until its next call.
typedef struct {
    int32_t error;          ///< rj_error
    char message[192];
    int32_t surface_counts[RJS_KIND_COUNT];
    const double *surfaces;           ///< all surfaces, kind by kind, RJ_ELEMENT_STRIDE each
    int32_t object_count;
    const double *objects;            ///< RJ_ELEMENT_STRIDE each
    const int32_t *floor_corner_counts; ///< one per floor
    const double *floor_corners;      ///< x, y, z per corner, floor after floor
    const char *strings;              ///< packed UTF-8 of category keys and section labels
    const int32_t *object_categories; ///< offset, length into `strings`, per object
    int32_t section_count;
    const int32_t *section_labels;    ///< offset, length into `strings`, per section (-1 offset: no label)
} rj_room;

/// Validates `buf` as a CapturedRoom JSON object and extracts its geometry.
int32_t rj_parse_room(rj_parser *parser, const uint8_t *buf, size_t len, size_t capacity,
                      rj_room *out);

/// The same for a raw room read back from a store, which `rj_parse_room` validated whole when
/// it was imported: syntax, UTF-8, numbers and the room's own checks still apply (a damaged
/// store still fails cleanly), but the walk over every object's keys for duplicates is skipped.
int32_t rj_parse_room_stored(rj_parser *parser, const uint8_t *buf, size_t len, size_t capacity,
                             rj_room *out);

/// The `room` object of the record `rj_parse_record` parsed last, decoded as `rj_parse_room`
/// decodes its text, from that same parse (which validated it whole: syntax, UTF-8, numbers,
/// duplicate keys), so a format-3 record's room is parsed once. Call it right after that
/// `rj_parse_record`, before any other call on the parser, once; RJ_INTERNAL when that record
/// had no `room` object.
int32_t rj_parse_record_room(rj_parser *parser, rj_room *out);

/// Finds the string value of top-level member `key` in a JSON object that is already known
/// to be valid. On success (1) `*offset` and `*length` give the value's raw text between its
/// quotes (escapes untouched) within `buf`; 0 when the key is absent or not a string.
int32_t rj_find_string_member(rj_parser *parser, const uint8_t *buf, size_t len, size_t capacity,
                              const char *key, size_t *offset, size_t *length);

/// Decodes standard base64 (padding optional). `out` must hold (len / 4 + 1) * 3 bytes.
/// Returns the decoded length, or -1 when `in` is not valid base64.
int64_t rj_base64_decode(const char *in, size_t len, uint8_t *out);

/// A fast 128-bit non-cryptographic content hash (two XXH64 lanes) for change detection
/// and deterministic ids.
void rj_hash128(const uint8_t *buf, size_t len, uint64_t seed, uint64_t out[2]);

/// The floor a derive is measured against (`make bench`): a bare On-Demand pass over a stored
/// raw room touching every value the derivation reads, building nothing. One per thread.
typedef struct rj_floor rj_floor;

/// What floor passes touched, summed over rooms (the checksum keeps the work observable).
typedef struct {
    int64_t rooms;
    int64_t elements;   ///< surfaces and objects
    int64_t numbers;    ///< dimensions, transforms and floor corners
    int64_t strings;    ///< bytes of category keys and section labels
    double checksum;    ///< the sum of every number
} rj_floor_sums;

rj_floor *rj_floor_create(void);
void rj_floor_destroy(rj_floor *floor);

/// One room's pass (copied once into padded scratch), added to `sums`; RJ_OK, or an error
/// class when a value it touches is not what a room holds.
int32_t rj_floor_pass(rj_floor *floor, const uint8_t *buf, size_t len, rj_floor_sums *sums);

#ifdef __cplusplus
}
#endif
#endif
