package io.kelp.codegen;

import io.kelp.codegen.Model.Field;
import io.kelp.codegen.Model.Message;
import io.kelp.codegen.Model.Struct;
import io.kelp.codegen.Model.Type;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Writes the Java class of one message: fields with accessors, a reader and a writer for every
 * version, equals, hashCode and toString. Structs become nested classes.
 *
 * <p>Version checks are emitted as plain comparisons on the {@code version} argument; the JIT folds
 * them, and the generated code stays readable next to its definition.
 */
final class JavaEmitter {
  private static final Set<String> KEYWORDS =
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
  private static final Set<String> RESERVED_METHODS =
      Set.of(
          "read",
          "write",
          "unknownTaggedFields",
          "equals",
          "hashCode",
          "toString",
          "getClass",
          "notify",
          "wait");
  private static final Set<String> RESERVED_ROOT_METHODS =
      Set.of("apiKey", "lowestVersion", "highestVersion", "isFlexible");
  private static final Set<String> RESERVED_CLASSES =
      Set.of(
          "String",
          "Object",
          "List",
          "ArrayList",
          "UUID",
          "ByteBuf",
          "Arrays",
          "Objects",
          "WireReader",
          "WireWriter",
          "RawTaggedField",
          "Message",
          "ApiMessage",
          "Wire");

  private final Message message;
  private final String javaPackage;
  private final CodeBuffer out = new CodeBuffer();

  JavaEmitter(Message message, String javaPackage) {
    this.message = message;
    this.javaPackage = javaPackage;
  }

  String emit() {
    for (String name : message.structs.keySet()) {
      if (RESERVED_CLASSES.contains(name)) {
        throw new DefinitionException(message.file, 0, "struct name " + name + " is reserved");
      }
    }
    out.line("// Generated from %s by Kelp's codec generator. Do not edit.", message.file);
    out.line("package %s;", javaPackage);
    out.line("");
    out.line("import io.kelp.codec.wire.ApiMessage;");
    out.line("import io.kelp.codec.wire.Message;");
    out.line("import io.kelp.codec.wire.RawTaggedField;");
    out.line("import io.kelp.codec.wire.Wire;");
    out.line("import io.kelp.codec.wire.WireReader;");
    out.line("import io.kelp.codec.wire.WireWriter;");
    out.line("import io.netty.buffer.ByteBuf;");
    out.line("import java.util.ArrayList;");
    out.line("import java.util.Arrays;");
    out.line("import java.util.List;");
    out.line("import java.util.Objects;");
    out.line("import java.util.UUID;");
    out.line("");
    out.line("/**");
    out.line(
        " * Kafka %s%s, versions %s, flexible versions %s.",
        message.name,
        message.apiKey >= 0 ? " (API key " + message.apiKey + ")" : "",
        message.valid,
        message.flexible);
    out.line(" */");
    out.line("@SuppressWarnings({\"unused\", \"MutablePublicArray\"})");
    emitStruct(message.root, true);
    return out.toString();
  }

  private void emitStruct(Struct struct, boolean root) {
    String cls = struct.name;
    out.open(
        "public %sfinal class %s implements %s {",
        root ? "" : "static ", cls, root ? "ApiMessage" : "Message");
    if (root) {
      out.line("public static final short API_KEY = %d;", message.apiKey);
      out.line("public static final short LOWEST_VERSION = %d;", message.valid.lowest());
      out.line("public static final short HIGHEST_VERSION = %d;", message.valid.highest());
      out.line(
          "public static final short LOWEST_FLEXIBLE_VERSION = %d;",
          message.flexible.isEmpty() ? Short.MAX_VALUE : message.flexible.lowest());
      out.line("");
    }
    for (Field f : struct.fields) {
      out.line("private %s %s = %s;", javaType(f.type), var(f), defaultExpr(f));
    }
    out.line("private List<RawTaggedField> unknownTaggedFields;");
    out.line("");
    out.line("public %s() {}", cls);
    out.line("");
    if (root) {
      emitRootMethods();
    }
    emitRead(struct);
    emitWrite(struct);
    emitSize(struct);
    emitAccessors(struct, root);
    emitEquals(struct);
    emitToString(struct);
    if (root) {
      for (Struct nested : message.structs.values()) {
        out.line("");
        emitStruct(nested, false);
      }
    }
    out.close();
  }

  private void emitRootMethods() {
    out.line("@Override");
    out.open("public short apiKey() {");
    out.line("return API_KEY;");
    out.close();
    out.line("");
    out.line("@Override");
    out.open("public short lowestVersion() {");
    out.line("return LOWEST_VERSION;");
    out.close();
    out.line("");
    out.line("@Override");
    out.open("public short highestVersion() {");
    out.line("return HIGHEST_VERSION;");
    out.close();
    out.line("");
    out.line("/** Whether {@code version} uses compact types and tagged fields. */");
    out.open("public static boolean isFlexible(short version) {");
    out.line("return %s;", message.flexible.condition(message.valid));
    out.close();
    out.line("");
  }

  // ---- reading ----

  private void emitRead(Struct struct) {
    out.line("@Override");
    out.open("public void read(WireReader reader, short version) {");
    out.line("final boolean flexible = %s;", message.flexible.condition(message.valid));
    for (Field f : struct.fields) {
      String cond = untaggedCondition(f);
      if (cond.equals("false")) {
        out.line("this.%s = %s;", var(f), defaultExpr(f));
        continue;
      }
      if (cond.equals("true")) {
        emitReadValue(f, false);
        continue;
      }
      out.open("if (%s) {", cond);
      emitReadValue(f, false);
      out.reopen("} else {");
      out.line("this.%s = %s;", var(f), defaultExpr(f));
      out.close();
    }
    out.line("this.unknownTaggedFields = null;");
    List<Field> tagged = taggedFields(struct);
    out.open("if (flexible) {");
    out.line("int taggedCount = reader.readUnsignedVarint();");
    out.open("for (int i = 0; i < taggedCount && reader.ok(); i++) {");
    out.line("int tag = reader.readUnsignedVarint();");
    out.line("int size = reader.readUnsignedVarint();");
    out.line("int end = reader.beginTaggedField(size);");
    if (tagged.isEmpty()) {
      out.line(
          "this.unknownTaggedFields = reader.readUnknownTaggedField(this.unknownTaggedFields, tag,"
              + " size);");
    } else {
      out.open("switch (tag) {");
      for (Field f : tagged) {
        out.open("case %d -> {", f.tag);
        String cond = f.tagged.intersect(f.versions).condition(message.valid);
        out.open("if (%s) {", cond);
        emitReadValue(f, true);
        out.reopen("} else {");
        out.line("reader.fail(\"tag %d (%s) is not valid in version \" + version);", f.tag, f.name);
        out.close();
        out.close();
      }
      out.line(
          "default -> this.unknownTaggedFields = reader.readUnknownTaggedField("
              + "this.unknownTaggedFields, tag, size);");
      out.close();
    }
    out.line("reader.endTaggedField(end, tag);");
    out.close();
    out.close();
    out.close();
    out.line("");
  }

  private void emitReadValue(Field f, boolean tagged) {
    String target = "this." + var(f);
    String nullable = f.nullable.condition(message.valid);
    Type t = f.type;
    if (t.array()) {
      out.open("{");
      out.line("int count = reader.readArrayLength(flexible, %s, \"%s\");", nullable, f.name);
      out.open("if (count < 0) {");
      out.line("%s = null;", target);
      out.reopen("} else {");
      out.line("%s list = new ArrayList<>(Math.min(count, 64));", javaType(t));
      out.open("for (int index = 0; index < count && reader.ok(); index++) {");
      readElement(t.element(), f.name);
      out.close();
      out.line("%s = list;", target);
      out.close();
      out.close();
    } else if (t.isStruct()) {
      String create =
          String.format("%s = new %s(); %s.read(reader, version);", target, t.base(), target);
      if (nullable.equals("false")) {
        out.line(create);
      } else {
        String marker = tagged ? "reader.readUnsignedVarint() <= 0" : "reader.readInt8() < 0";
        String test = nullable.equals("true") ? marker : "(" + nullable + ") && " + marker;
        out.open("if (%s) {", test);
        out.line("%s = null;", target);
        out.reopen("} else {");
        out.line("%s = new %s();", target, t.base());
        out.line("%s.read(reader, version);", target);
        out.close();
      }
    } else {
      out.line("%s = %s;", target, readScalar(t.base(), nullable, f.name));
    }
  }

  private void readElement(Type element, String name) {
    if (element.isStruct()) {
      out.line("%s element = new %s();", element.base(), element.base());
      out.line("element.read(reader, version);");
      out.line("list.add(element);");
    } else {
      out.line("list.add(%s);", readScalar(element.base(), "false", name));
    }
  }

  private static String readScalar(String base, String nullable, String name) {
    return switch (base) {
      case "bool" -> "reader.readBool()";
      case "int8" -> "reader.readInt8()";
      case "int16" -> "reader.readInt16()";
      case "uint16" -> "reader.readUint16()";
      case "int32" -> "reader.readInt32()";
      case "uint32" -> "reader.readUint32()";
      case "int64" -> "reader.readInt64()";
      case "float64" -> "reader.readFloat64()";
      case "uuid" -> "reader.readUuid()";
      case "string" -> String.format("reader.readString(flexible, %s, \"%s\")", nullable, name);
      case "bytes" -> String.format("reader.readBytes(flexible, %s, \"%s\")", nullable, name);
      case "records" -> String.format("reader.readRecords(flexible, %s, \"%s\")", nullable, name);
      default -> throw new IllegalStateException("not a scalar: " + base);
    };
  }

  // ---- writing ----

  private void emitWrite(Struct struct) {
    out.line("@Override");
    out.open("public void write(WireWriter writer, short version) {");
    out.line("final boolean flexible = %s;", message.flexible.condition(message.valid));
    for (Field f : struct.fields) {
      String cond = untaggedCondition(f);
      if (cond.equals("false")) {
        continue;
      }
      if (cond.equals("true")) {
        emitWriteValue(f, "writer", "flexible", false);
      } else {
        out.open("if (%s) {", cond);
        emitWriteValue(f, "writer", "flexible", false);
        out.close();
      }
    }
    List<Field> tagged = taggedFields(struct);
    out.open("if (flexible) {");
    out.line("int taggedCount = unknownTaggedFields == null ? 0 : unknownTaggedFields.size();");
    for (Field f : tagged) {
      out.open("if (%s) {", and(taggedCondition(f), nonDefault(f)));
      out.line("taggedCount++;");
      out.close();
    }
    out.line("writer.writeUnsignedVarint(taggedCount);");
    if (tagged.isEmpty()) {
      out.line("writer.writeUnknownTaggedFields(unknownTaggedFields, 0, Integer.MAX_VALUE);");
    } else {
      out.line("int unknownIndex = 0;");
      for (Field f : tagged) {
        out.line(
            "unknownIndex = writer.writeUnknownTaggedFields(unknownTaggedFields, unknownIndex, %d);",
            f.tag);
        out.open("if (%s) {", and(taggedCondition(f), nonDefault(f)));
        if (!isPrimitiveValue(f.type) && !f.defaultValue.equals("null")) {
          out.open("if (this.%s == null) {", var(f));
          out.line(
              "writer.writeTaggedNull(%d, %s, \"%s\");",
              f.tag, f.nullable.condition(message.valid), f.name);
          out.reopen("} else {");
          out.line("WireWriter tagged = writer.scratch();");
          emitTaggedValue(f);
          out.line("writer.writeTaggedField(%d, tagged);", f.tag);
          out.close();
        } else {
          out.line("WireWriter tagged = writer.scratch();");
          emitTaggedValue(f);
          out.line("writer.writeTaggedField(%d, tagged);", f.tag);
        }
        out.close();
      }
      out.line(
          "writer.writeUnknownTaggedFields(unknownTaggedFields, unknownIndex, Integer.MAX_VALUE);");
    }
    out.close();
    out.close();
    out.line("");
  }

  private void emitTaggedValue(Field f) {
    if (f.type.isStruct() && !f.type.array()) {
      String nullable = f.nullable.condition(message.valid);
      if (nullable.equals("true")) {
        out.line("tagged.writeUnsignedVarint(1);");
      } else if (!nullable.equals("false")) {
        out.open("if (%s) {", nullable);
        out.line("tagged.writeUnsignedVarint(1);");
        out.close();
      }
      out.line("this.%s.write(tagged, version);", var(f));
    } else {
      emitWriteValue(f, "tagged", "true", true);
    }
  }

  private void emitWriteValue(Field f, String w, String flexible, boolean tagged) {
    String value = "this." + var(f);
    String nullable = tagged ? "true" : f.nullable.condition(message.valid);
    Type t = f.type;
    if (t.array()) {
      out.open("if (%s == null) {", value);
      out.line("%s.writeNullArray(%s, %s, \"%s\");", w, flexible, nullable, f.name);
      out.reopen("} else {");
      out.line("%s.writeArrayLength(%s, %s.size());", w, flexible, value);
      out.open("for (%s element : %s) {", boxed(t.base()), value);
      out.line(writeScalarOrStruct(t.base(), "element", w, flexible, "false", f.name));
      out.close();
      out.close();
    } else if (t.isStruct()) {
      if (nullable.equals("false")) {
        out.line("%s.requireNonNull(%s, \"%s\").write(%s, version);", w, value, f.name, w);
      } else {
        String test = nullable.equals("true") ? "" : "(" + nullable + ") && ";
        out.open("if (%s%s == null) {", test, value);
        out.line("%s.writeInt8((byte) -1);", w);
        out.reopen("} else {");
        if (!nullable.equals("true")) {
          out.open("if (%s) {", nullable);
          out.line("%s.writeInt8((byte) 1);", w);
          out.close();
        } else {
          out.line("%s.writeInt8((byte) 1);", w);
        }
        out.line("%s.requireNonNull(%s, \"%s\").write(%s, version);", w, value, f.name, w);
        out.close();
      }
    } else {
      out.line(writeScalarOrStruct(t.base(), value, w, flexible, nullable, f.name));
    }
  }

  private static String writeScalarOrStruct(
      String base, String value, String w, String flexible, String nullable, String name) {
    return switch (base) {
      case "bool" -> String.format("%s.writeBool(%s);", w, value);
      case "int8" -> String.format("%s.writeInt8(%s);", w, value);
      case "int16" -> String.format("%s.writeInt16(%s);", w, value);
      case "uint16" -> String.format("%s.writeUint16(%s);", w, value);
      case "int32" -> String.format("%s.writeInt32(%s);", w, value);
      case "uint32" -> String.format("%s.writeUint32(%s);", w, value);
      case "int64" -> String.format("%s.writeInt64(%s);", w, value);
      case "float64" -> String.format("%s.writeFloat64(%s);", w, value);
      case "uuid" -> String.format("%s.writeUuid(%s);", w, value);
      case "string" ->
          String.format("%s.writeString(%s, %s, %s, \"%s\");", w, flexible, value, nullable, name);
      case "bytes" ->
          String.format("%s.writeBytes(%s, %s, %s, \"%s\");", w, flexible, value, nullable, name);
      case "records" ->
          String.format("%s.writeRecords(%s, %s, %s, \"%s\");", w, flexible, value, nullable, name);
      default ->
          String.format("%s.requireNonNull(%s, \"%s\").write(%s, version);", w, value, name, w);
    };
  }

  /** The versions in which a field is written in place, not as a tagged field. */
  private String untaggedCondition(Field f) {
    Versions valid = f.versions.intersect(message.valid);
    Versions untagged = valid.subtract(f.tagged);
    if (untagged != null) {
      return untagged.condition(message.valid);
    }
    return and(f.versions.condition(message.valid), not(f.tagged));
  }

  private String taggedCondition(Field f) {
    return f.tagged.intersect(f.versions).condition(message.valid);
  }

  /** True when a tagged field differs from its default and so must be written. */
  private String nonDefault(Field f) {
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

  // ---- sizing ----

  private void emitSize(Struct struct) {
    out.line("@Override");
    out.open("public int size(short version) {");
    out.line("final boolean flexible = %s;", message.flexible.condition(message.valid));
    out.line("int size = 0;");
    for (Field f : struct.fields) {
      String cond = untaggedCondition(f);
      if (cond.equals("false")) {
        continue;
      }
      if (cond.equals("true")) {
        emitSizeValue(f, "flexible", false);
      } else {
        out.open("if (%s) {", cond);
        emitSizeValue(f, "flexible", false);
        out.close();
      }
    }
    List<Field> tagged = taggedFields(struct);
    out.open("if (flexible) {");
    out.line("int taggedCount = 0;");
    out.open("if (unknownTaggedFields != null) {");
    out.line("taggedCount += unknownTaggedFields.size();");
    out.line("size += Wire.sizeOfTaggedFields(unknownTaggedFields);");
    out.close();
    for (Field f : tagged) {
      out.open("if (%s) {", and(taggedCondition(f), nonDefault(f)));
      out.line("taggedCount++;");
      out.line("int before = size;");
      if (!isPrimitiveValue(f.type) && !f.defaultValue.equals("null")) {
        out.open("if (this.%s == null) {", var(f));
        out.line("size += 1;");
        out.reopen("} else {");
        emitTaggedSize(f);
        out.close();
      } else {
        emitTaggedSize(f);
      }
      out.line(
          "size += Wire.sizeOfUnsignedVarint(%d) + Wire.sizeOfUnsignedVarint(size - before);",
          f.tag);
      out.close();
    }
    out.line("size += Wire.sizeOfUnsignedVarint(taggedCount);");
    out.close();
    out.line("return size;");
    out.close();
    out.line("");
  }

  private void emitTaggedSize(Field f) {
    if (f.type.isStruct() && !f.type.array()) {
      String nullable = f.nullable.condition(message.valid);
      if (nullable.equals("true")) {
        out.line("size += 1;");
      } else if (!nullable.equals("false")) {
        out.open("if (%s) {", nullable);
        out.line("size += 1;");
        out.close();
      }
      out.line("size += this.%s.size(version);", var(f));
    } else {
      emitSizeValue(f, "true", true);
    }
  }

  private void emitSizeValue(Field f, String flexible, boolean tagged) {
    String value = "this." + var(f);
    Type t = f.type;
    if (t.array()) {
      out.open("if (%s == null) {", value);
      out.line("size += Wire.sizeOfLength(%s, false, -1);", flexible);
      out.reopen("} else {");
      out.line("size += Wire.sizeOfLength(%s, false, %s.size());", flexible, value);
      String fixed = fixedSize(t.base());
      if (fixed != null) {
        out.line("size += %s * %s.size();", fixed, value);
      } else {
        out.open("for (%s element : %s) {", boxed(t.base()), value);
        out.line("size += %s;", sizeOfScalarOrStruct(t.base(), "element", flexible));
        out.close();
      }
      out.close();
    } else if (t.isStruct()) {
      String nullable = tagged ? "false" : f.nullable.condition(message.valid);
      if (nullable.equals("false")) {
        out.line("size += %s.size(version);", value);
      } else {
        String test = nullable.equals("true") ? "" : "(" + nullable + ") && ";
        out.open("if (%s%s == null) {", test, value);
        out.line("size += 1;");
        out.reopen("} else {");
        if (!nullable.equals("true")) {
          out.open("if (%s) {", nullable);
          out.line("size += 1;");
          out.close();
        } else {
          out.line("size += 1;");
        }
        out.line("size += %s.size(version);", value);
        out.close();
      }
    } else {
      out.line("size += %s;", sizeOfScalarOrStruct(t.base(), value, flexible));
    }
  }

  private static String fixedSize(String base) {
    return switch (base) {
      case "bool", "int8" -> "1";
      case "int16", "uint16" -> "2";
      case "int32", "uint32" -> "4";
      case "int64", "float64" -> "8";
      case "uuid" -> "16";
      default -> null;
    };
  }

  private static String sizeOfScalarOrStruct(String base, String value, String flexible) {
    String fixed = fixedSize(base);
    if (fixed != null) {
      return fixed;
    }
    return switch (base) {
      case "string" -> String.format("Wire.sizeOfString(%s, %s)", flexible, value);
      case "bytes" -> String.format("Wire.sizeOfBytes(%s, %s)", flexible, value);
      case "records" -> String.format("Wire.sizeOfRecords(%s, %s)", flexible, value);
      default -> String.format("%s.size(version)", value);
    };
  }

  // ---- accessors, equals, toString ----

  private void emitAccessors(Struct struct, boolean root) {
    out.line("@Override");
    out.open("public List<RawTaggedField> unknownTaggedFields() {");
    out.open("if (unknownTaggedFields == null) {");
    out.line("unknownTaggedFields = new ArrayList<>(0);");
    out.close();
    out.line("return unknownTaggedFields;");
    out.close();
    out.line("");
    for (Field f : struct.fields) {
      String getter = getter(f, root);
      String type = javaType(f.type);
      out.open("public %s %s() {", type, getter);
      out.line("return this.%s;", var(f));
      out.close();
      out.line("");
      out.open("public %s set%s(%s value) {", struct.name, f.name, type);
      out.line("this.%s = value;", var(f));
      out.line("return this;");
      out.close();
      out.line("");
    }
  }

  private void emitEquals(Struct struct) {
    out.line("@Override");
    out.open("public boolean equals(Object other) {");
    out.open("if (!(other instanceof %s that)) {", struct.name);
    out.line("return false;");
    out.close();
    for (Field f : struct.fields) {
      String a = "this." + var(f);
      String b = "that." + var(f);
      String differs;
      if (!f.type.array() && f.type.base().equals("bytes")) {
        differs = "!Arrays.equals(" + a + ", " + b + ")";
      } else if (!f.type.array() && f.type.base().equals("float64")) {
        differs = "Double.compare(" + a + ", " + b + ") != 0";
      } else if (isPrimitiveValue(f.type)) {
        differs = a + " != " + b;
      } else {
        differs = "!Objects.equals(" + a + ", " + b + ")";
      }
      out.open("if (%s) {", differs);
      out.line("return false;");
      out.close();
    }
    out.line("return Wire.sameTaggedFields(this.unknownTaggedFields, that.unknownTaggedFields);");
    out.close();
    out.line("");
    out.line("@Override");
    out.open("public int hashCode() {");
    out.line("int hash = 0;");
    for (Field f : struct.fields) {
      String a = "this." + var(f);
      String h;
      if (!f.type.array() && f.type.base().equals("bytes")) {
        h = "Arrays.hashCode(" + a + ")";
      } else if (isPrimitiveValue(f.type)) {
        h = boxed(f.type.base()) + ".hashCode(" + a + ")";
      } else {
        h = "Objects.hashCode(" + a + ")";
      }
      out.line("hash = 31 * hash + %s;", h);
    }
    out.line("return hash;");
    out.close();
    out.line("");
  }

  private void emitToString(Struct struct) {
    out.line("@Override");
    out.open("public String toString() {");
    if (struct.fields.isEmpty()) {
      out.line("return \"%s()\";", struct.name);
    } else {
      out.line("return \"%s(\"", struct.name);
      for (int i = 0; i < struct.fields.size(); i++) {
        Field f = struct.fields.get(i);
        String value = "this." + var(f);
        if (!f.type.array() && (f.type.base().equals("bytes") || f.type.base().equals("records"))) {
          value = "Wire.describe(" + value + ")";
        } else if (!f.type.array() && f.type.base().equals("string")) {
          value = "Wire.quote(" + value + ")";
        }
        String sep = i == 0 ? "" : ", ";
        out.line("    + \"%s%s=\" + %s", sep, lowerFirst(f.name), value);
      }
      out.line("    + \")\";");
    }
    out.close();
  }

  // ---- names and types ----

  private static List<Field> taggedFields(Struct struct) {
    List<Field> tagged = new ArrayList<>();
    for (Field f : struct.fields) {
      if (f.isTagged()) {
        tagged.add(f);
      }
    }
    tagged.sort(Comparator.comparingInt(f -> f.tag));
    return tagged;
  }

  private String not(Versions tagged) {
    String c = tagged.condition(message.valid);
    if (c.equals("false")) {
      return "true";
    }
    if (c.equals("true")) {
      return "false";
    }
    return "!(" + c + ")";
  }

  private static String and(String a, String b) {
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

  private static String lowerFirst(String name) {
    return Character.toLowerCase(name.charAt(0)) + name.substring(1);
  }

  private static String var(Field f) {
    String name = lowerFirst(f.name);
    return KEYWORDS.contains(name) ? name + "Value" : name;
  }

  private String getter(Field f, boolean root) {
    String name = var(f);
    if (RESERVED_METHODS.contains(name) || (root && RESERVED_ROOT_METHODS.contains(name))) {
      throw new DefinitionException(message.file, f.line, "field name " + f.name + " is reserved");
    }
    return name;
  }

  private static boolean isPrimitiveValue(Type t) {
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

  private static String boxed(String base) {
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

  private String defaultExpr(Field f) {
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

  private static long number(String text, long min, long max) {
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
