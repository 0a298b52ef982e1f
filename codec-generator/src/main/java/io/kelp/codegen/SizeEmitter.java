package io.kelp.codegen;

import io.kelp.codegen.Model.Field;
import io.kelp.codegen.Model.Message;
import io.kelp.codegen.Model.Struct;
import io.kelp.codegen.Model.Type;
import java.util.List;

/** Writes the size(version) method of a struct. */
final class SizeEmitter extends EmitterBase {
  SizeEmitter(Message message, CodeBuffer out) {
    super(message, out);
  }

  // ---- sizing ----

  void emitSize(Struct struct) {
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

  void emitTaggedSize(Field f) {
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

  void emitSizeValue(Field f, String flexible, boolean tagged) {
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
}
