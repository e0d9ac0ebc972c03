// The yardstick a derive is measured against (`make bench`, "derive vs floor"): a bare
// simdjson On-Demand pass over a stored raw room that touches every value the derivation
// reads (each surface's and object's dimensions and transform, floor polygon corners, object
// categories, section labels) and builds nothing. It validates only what it touches.
#include "CRoomJSON.h"

#include <simdjson.h>

#include <cstring>
#include <string_view>
#include <vector>

struct rj_floor {
    simdjson::ondemand::parser parser;
    std::vector<uint8_t> padded;  // the room, copied once with simdjson's padding after it
};

extern "C" rj_floor *rj_floor_create(void) {
    try { return new rj_floor(); } catch (...) { return nullptr; }
}

extern "C" void rj_floor_destroy(rj_floor *floor) { delete floor; }

namespace {

using simdjson::ondemand::array;
using simdjson::ondemand::object;
using simdjson::ondemand::value;

// Every number of an array (dimensions, transform, one corner), summed into `sums`.
bool numbers(value v, rj_floor_sums *sums) {
    array arr;
    if (v.get_array().get(arr)) return false;
    for (auto item : arr) {
        double d;
        if (item.get_double().get(d)) return false;
        sums->checksum += d;
        ++sums->numbers;
    }
    return true;
}

// One surface or object: its dimensions and transform, a floor's corners, an object's category.
bool element(value v, rj_floor_sums *sums) {
    object obj;
    if (v.get_object().get(obj)) return false;
    for (auto field : obj) {
        std::string_view key;
        if (field.unescaped_key().get(key)) return false;
        if (key == "dimensions" || key == "transform") {
            if (!numbers(field.value(), sums)) return false;
        } else if (key == "polygonCorners") {
            array corners;
            if (field.value().get_array().get(corners)) return false;
            for (auto corner : corners) {
                value c;
                if (corner.get(c) || !numbers(c, sums)) return false;
            }
        } else if (key == "category") {
            object category;
            if (field.value().get_object().get(category)) return false;
            for (auto kind : category) {
                std::string_view name;
                if (kind.unescaped_key().get(name)) return false;
                sums->strings += name.size();
                break;
            }
        }
    }
    ++sums->elements;
    return true;
}

bool elements(value v, rj_floor_sums *sums) {
    array arr;
    if (v.get_array().get(arr)) return false;
    for (auto item : arr) {
        value e;
        if (item.get(e) || !element(e, sums)) return false;
    }
    return true;
}

bool sections(value v, rj_floor_sums *sums) {
    array arr;
    if (v.get_array().get(arr)) return false;
    for (auto item : arr) {
        object section;
        if (item.get_object().get(section)) return false;
        for (auto field : section) {
            std::string_view key, label;
            if (field.unescaped_key().get(key)) return false;
            if (key != "label") continue;
            if (field.value().get_string().get(label) == simdjson::SUCCESS) sums->strings += label.size();
        }
    }
    return true;
}

}  // namespace

extern "C" int32_t rj_floor_pass(rj_floor *f, const uint8_t *buf, size_t len, rj_floor_sums *sums) {
    try {
        if (f->padded.size() < len + simdjson::SIMDJSON_PADDING) f->padded.resize(len + simdjson::SIMDJSON_PADDING);
        std::memcpy(f->padded.data(), buf, len);
        std::memset(f->padded.data() + len, 0, simdjson::SIMDJSON_PADDING);
        simdjson::ondemand::document doc;
        if (f->parser.iterate(f->padded.data(), len, f->padded.size()).get(doc)) return RJ_INVALID_JSON;
        object root;
        if (doc.get_object().get(root)) return RJ_NOT_OBJECT;
        for (auto field : root) {
            std::string_view key;
            if (field.unescaped_key().get(key)) return RJ_INVALID_JSON;
            bool ok = true;
            if (key == "walls" || key == "doors" || key == "windows" || key == "openings" || key == "floors" ||
                key == "objects") {
                ok = elements(field.value(), sums);
            } else if (key == "sections") {
                ok = sections(field.value(), sums);
            }
            if (!ok) return RJ_INVALID_JSON;
        }
        ++sums->rooms;
        return RJ_OK;
    } catch (...) {
        return RJ_INTERNAL;
    }
}
