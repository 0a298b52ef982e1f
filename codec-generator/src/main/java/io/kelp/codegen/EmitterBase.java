package io.kelp.codegen;

import io.kelp.codegen.Model.Field;
import io.kelp.codegen.Model.Message;
import io.kelp.codegen.Model.Struct;
import io.kelp.codegen.Model.Type;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/** What the emitters share: the message, the output, and how fields map to Java expressions. */
abstract class EmitterBase {
  static final Set<String> KEYWORDS =
      Set.of(
          "abstract",
          "assert",
          "boolean",
          "break",
          "byte",
          "case",
          "catch",
          "char",
          "class",
          "const",
          "continue",
          "default",
          "do",
          "double",
          "else",
          "enum",
          "extends",
          "final",
          "finally",
          "float",
          "for",
          "goto",
          "if",
          "implements",
          "import",
          "instanceof",
          "int",
          "interface",
          "long",
          "native",
          "new",
          "package",
          "private",
          "protected",
          "public",
          "return",
          "short",
          "static",
          "strictfp",
          "super",
          "switch",
          "synchronized",
          "this",
          "throw",
          "throws",
          "transient",
          "try",
          "void",
          "volatile",
          "while",
          "record",
          "var",
          "yield");
  final Message message;
  final CodeBuffer out;

  EmitterBase(Message message, CodeBuffer out) {
    this.message = message;
    this.out = out;
  }

  /** The versions in which a field is written in place, not as a tagged field. */
  String untaggedCondition(Field f) {
    Versions valid = f.versions.intersect(message.valid);
    Versions untagged = valid.subtract(f.tagged);
    if (untagged != null) {
      return untagged.condition(message.valid);
    }
    return and(f.versions.condition(message.valid), not(f.tagged));
  }

  String taggedCondition(Field f) {
    return f.tagged.intersect(f.versions).condition(message.valid);
  }

  /** True when a tagged field differs from its default and so must be written. */
  String nonDefault(Field f) {
    String v = "this." + var(f);
    String def = defaultExpr(f);
    Type t = f.type;
    if (t.array()) {
      return def.equals("null") ? v + " != null" : "(" + v + " == null || !" + v + ".isEmpty())";
    }
    if (t.base().equals("bytes")) {
      return def.equals("null") ? v + " != null" : "(" + v + " == null || " + v + ".length != 0)";
    }
    if (t.isStruct() || t.base().equals("string") || t.base().equals("uuid")) {
      return def.equals("null")
          ? v + " != null"
          : "(" + v + " == null || !" + v + ".equals(" + def + "))";
    }
    return v + " != " + def;
  }

  // ---- names and types ----

  static List<Field> taggedFields(Struct struct) {
    List<Field> tagged = new ArrayList<>();
    for (Field f : struct.fields) {
      if (f.isTagged()) {
        tagged.add(f);
      }
    }
    tagged.sort(Comparator.comparingInt(f -> f.tag));
    return tagged;
  }

  String not(Versions tagged) {
    String c = tagged.condition(message.valid);
    if (c.equals("false")) {
      return "true";
    }
    if (c.equals("true")) {
      return "false";
    }
    return "!(" + c + ")";
  }

  static String and(String a, String b) {
    if (a.equals("false") || b.equals("false")) {
      return "false";
    }
    if (a.equals("true")) {
      return b;
    }
    if (b.equals("true")) {
      return a;
    }
    return "(" + a + ") && (" + b + ")";
  }

  static String lowerFirst(String name) {
    return Character.toLowerCase(name.charAt(0)) + name.substring(1);
  }

  static String var(Field f) {
    String name = lowerFirst(f.name);
    return KEYWORDS.contains(name) ? name + "Value" : name;
  }

  static boolean isPrimitiveValue(Type t) {
    if (t.array()) {
      return false;
    }
    return switch (t.base()) {
      case "bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64" -> true;
      default -> false;
    };
  }

  static String javaType(Type t) {
    if (t.array()) {
      return "List<" + boxed(t.base()) + ">";
    }
    return switch (t.base()) {
      case "bool" -> "boolean";
      case "int8" -> "byte";
      case "int16" -> "short";
      case "uint16", "int32" -> "int";
      case "uint32", "int64" -> "long";
      case "float64" -> "double";
      case "string" -> "String";
      case "bytes" -> "byte[]";
      case "uuid" -> "UUID";
      case "records" -> "ByteBuf";
      default -> t.base();
    };
  }

  static String boxed(String base) {
    return switch (base) {
      case "bool" -> "Boolean";
      case "int8" -> "Byte";
      case "int16" -> "Short";
      case "uint16", "int32" -> "Integer";
      case "uint32", "int64" -> "Long";
      case "float64" -> "Double";
      default -> javaType(new Type(base, false));
    };
  }

  String defaultExpr(Field f) {
    String d = f.defaultValue;
    Type t = f.type;
    if (t.array()) {
      return d.equals("null") ? "null" : "new ArrayList<>(0)";
    }
    try {
      return switch (t.base()) {
        case "bool" -> d.isEmpty() ? "false" : Boolean.toString(Boolean.parseBoolean(d));
        case "int8" -> "(byte) " + number(d, Byte.MIN_VALUE, Byte.MAX_VALUE);
        case "int16" -> "(short) " + number(d, Short.MIN_VALUE, Short.MAX_VALUE);
        case "uint16" -> Long.toString(number(d, 0, 65535));
        case "int32" -> Long.toString(number(d, Integer.MIN_VALUE, Integer.MAX_VALUE));
        case "uint32" -> number(d, 0, 0xFFFFFFFFL) + "L";
        case "int64" -> number(d, Long.MIN_VALUE, Long.MAX_VALUE) + "L";
        case "float64" -> d.isEmpty() ? "0.0" : Double.toString(Double.parseDouble(d));
        case "string" -> d.equals("null") ? "null" : "\"" + d.replace("\"", "\\\"") + "\"";
        case "bytes" -> d.equals("null") ? "null" : "Wire.EMPTY_BYTES";
        case "uuid" -> "Wire.ZERO_UUID";
        case "records" -> "null";
        default -> d.equals("null") ? "null" : "new " + t.base() + "()";
      };
    } catch (NumberFormatException e) {
      throw new DefinitionException(message.file, f.line, "bad default " + d + " for " + f.name);
    }
  }

  static long number(String text, long min, long max) {
    if (text.isEmpty()) {
      return 0;
    }
    long value =
        text.startsWith("0x") ? Long.parseLong(text.substring(2), 16) : Long.parseLong(text);
    if (value < min || value > max) {
      throw new NumberFormatException("out of range: " + text);
    }
    return value;
  }
}
