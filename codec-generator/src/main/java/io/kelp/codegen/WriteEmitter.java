package io.kelp.codegen;

import io.kelp.codegen.Model.Field;
import io.kelp.codegen.Model.Message;
import io.kelp.codegen.Model.Struct;
import io.kelp.codegen.Model.Type;
import java.util.List;

/** Writes the write(WireWriter, version) method of a struct. */
final class WriteEmitter extends EmitterBase {
  WriteEmitter(Message message, CodeBuffer out) {
    super(message, out);
  }

  // ---- writing ----

  void emitWrite(Struct struct) {
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

  void emitTaggedValue(Field f) {
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

  void emitWriteValue(Field f, String w, String flexible, boolean tagged) {
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
}
