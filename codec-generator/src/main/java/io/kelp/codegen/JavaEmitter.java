package io.kelp.codegen;

import io.kelp.codegen.Model.Field;
import io.kelp.codegen.Model.Message;
import io.kelp.codegen.Model.Struct;
import java.util.Set;

/**
 * Writes the Java class of one message: fields with accessors, a reader and a writer for every
 * version, equals, hashCode and toString. Structs become nested classes.
 *
 * <p>Version checks are emitted as plain comparisons on the {@code version} argument; the JIT folds
 * them, and the generated code stays readable next to its definition.
 */
final class JavaEmitter extends EmitterBase {
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

  private final String javaPackage;

  JavaEmitter(Message message, String javaPackage) {
    super(message, new CodeBuffer());
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
    new ReadEmitter(message, out).emitRead(struct);
    new WriteEmitter(message, out).emitWrite(struct);
    new SizeEmitter(message, out).emitSize(struct);
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

  private String getter(Field f, boolean root) {
    String name = var(f);
    if (RESERVED_METHODS.contains(name) || (root && RESERVED_ROOT_METHODS.contains(name))) {
      throw new DefinitionException(message.file, f.line, "field name " + f.name + " is reserved");
    }
    return name;
  }
}
