package io.kelp.codegen;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The parsed form of a message definition file. */
final class Model {
  private Model() {}

  static final Set<String> PRIMITIVES =
      Set.of(
          "bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64", "string",
          "bytes", "uuid", "records");

  /** A field's type: a primitive or struct name, possibly as an array. */
  record Type(String base, boolean array) {
    static Type parse(String text) {
      return text.startsWith("[]") ? new Type(text.substring(2), true) : new Type(text, false);
    }

    boolean isPrimitive() {
      return PRIMITIVES.contains(base);
    }

    boolean isStruct() {
      return !isPrimitive();
    }

    Type element() {
      return new Type(base, false);
    }

    @Override
    public String toString() {
      return (array ? "[]" : "") + base;
    }
  }

  static final class Field {
    final String name;
    final Type type;
    final Versions versions;
    final Versions nullable;
    final Versions tagged;
    final int tag;
    final String defaultValue;
    final int line;

    Field(
        String name,
        Type type,
        Versions versions,
        Versions nullable,
        Versions tagged,
        int tag,
        String defaultValue,
        int line) {
      this.name = name;
      this.type = type;
      this.versions = versions;
      this.nullable = nullable;
      this.tagged = tagged;
      this.tag = tag;
      this.defaultValue = defaultValue;
      this.line = line;
    }

    boolean isTagged() {
      return !tagged.isEmpty();
    }
  }

  static final class Struct {
    final String name;
    final List<Field> fields = new ArrayList<>();

    Struct(String name) {
      this.name = name;
    }
  }

  static final class Message {
    final String kind;
    final String name;
    final int apiKey;
    final Versions valid;
    final Versions flexible;
    final String file;
    final Struct root;
    final Map<String, Struct> structs = new LinkedHashMap<>();

    Message(String kind, String name, int apiKey, Versions valid, Versions flexible, String file) {
      this.kind = kind;
      this.name = name;
      this.apiKey = apiKey;
      this.valid = valid;
      this.flexible = flexible;
      this.file = file;
      this.root = new Struct(name);
    }
  }
}
