package io.kelp.codegen;

import io.kelp.codegen.Model.Field;
import io.kelp.codegen.Model.Message;
import io.kelp.codegen.Model.Struct;
import io.kelp.codegen.Model.Type;
import java.util.List;

/** Writes the read(WireReader, version) method of a struct. */
final class ReadEmitter extends EmitterBase {
  ReadEmitter(Message message, CodeBuffer out) {
    super(message, out);
  }

  // ---- reading ----

  void emitRead(Struct struct) {
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

  void emitReadValue(Field f, boolean tagged) {
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
}
