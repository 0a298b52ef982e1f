package io.kelp.codegen;

import io.kelp.codegen.Model.Field;
import io.kelp.codegen.Model.Message;
import io.kelp.codegen.Model.Struct;
import io.kelp.codegen.Model.Type;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one message definition file. The format is described in {@code
 * protocol-codec/src/main/messages/README.md}: a header line, then one field per line, nested by
 * two-space indentation, and top-level {@code struct} blocks for structs used by several fields.
 */
final class DefinitionParser {
  private final String file;
  private Message message;
  private final Deque<Level> stack = new ArrayDeque<>();

  /** A struct being filled and the indentation its fields use. */
  private record Level(Struct struct, int indent) {}

  private DefinitionParser(String file) {
    this.file = file;
  }

  private void line(int number, String raw) {
    int hash = raw.indexOf('#');
    String text = (hash >= 0 ? raw.substring(0, hash) : raw).stripTrailing();
    if (text.isBlank()) {
      return;
    }
    if (text.indexOf('\t') >= 0) {
      throw new DefinitionException(file, number, "tabs are not allowed; indent with two spaces");
    }
    int indent = 0;
    while (text.charAt(indent) == ' ') {
      indent++;
    }
    if (indent % 2 != 0) {
      throw new DefinitionException(file, number, "indentation must be a multiple of two spaces");
    }
    String[] tokens = text.trim().split("\\s+");
    if (indent == 0) {
      topLevel(number, tokens);
      return;
    }
    if (message == null) {
      throw new DefinitionException(file, number, "a field before the header line");
    }
    while (!stack.isEmpty() && stack.peek().indent() > indent) {
      stack.pop();
    }
    if (stack.isEmpty() || stack.peek().indent() != indent) {
      throw new DefinitionException(file, number, "unexpected indentation");
    }
    Field field = field(number, tokens);
    Struct owner = stack.peek().struct();
    for (Field existing : owner.fields) {
      if (existing.name.equals(field.name)) {
        throw new DefinitionException(file, number, "duplicate field " + field.name);
      }
    }
    owner.fields.add(field);
    if (field.type.isStruct()) {
      Struct child = new Struct(field.type.base());
      // The fields of an inline struct follow, indented one level deeper; a struct declared with
      // a top-level `struct` block has no children here.
      stack.push(new Level(child, indent + 2));
      pendingInline.put(child, number);
    }
  }

  private final Map<Struct, Integer> pendingInline = new HashMap<>();

  private void topLevel(int number, String[] tokens) {
    stack.clear();
    switch (tokens[0]) {
      case "request", "response", "data" -> header(number, tokens);
      case "struct" -> {
        if (message == null || tokens.length != 2) {
          throw new DefinitionException(file, number, "expected: struct <Name>, after the header");
        }
        Struct struct = new Struct(tokens[1]);
        register(number, struct);
        stack.push(new Level(struct, 2));
      }
      default -> throw new DefinitionException(file, number, "unknown keyword " + tokens[0]);
    }
  }

  private void header(int number, String[] tokens) {
    if (message != null) {
      throw new DefinitionException(file, number, "one message per file");
    }
    if (tokens.length < 2) {
      throw new DefinitionException(file, number, "expected: " + tokens[0] + " <Name> ...");
    }
    Map<String, String> attrs = new HashMap<>();
    for (int i = 2; i < tokens.length; i++) {
      int eq = tokens[i].indexOf('=');
      if (eq <= 0) {
        throw new DefinitionException(file, number, "expected key=value, got " + tokens[i]);
      }
      attrs.put(tokens[i].substring(0, eq), tokens[i].substring(eq + 1));
    }
    int apiKey = -1;
    if (!tokens[0].equals("data")) {
      apiKey = Integer.parseInt(required(number, attrs, "key"));
    }
    Versions valid = Versions.parse(required(number, attrs, "versions"));
    Versions flexible = Versions.parse(required(number, attrs, "flexible"));
    message = new Message(tokens[0], tokens[1], apiKey, valid, flexible, file);
    stack.push(new Level(message.root, 2));
  }

  private String required(int number, Map<String, String> attrs, String key) {
    String value = attrs.get(key);
    if (value == null) {
      throw new DefinitionException(file, number, "missing " + key + "=");
    }
    return value;
  }

  private Field field(int number, String[] tokens) {
    if (tokens.length < 2) {
      throw new DefinitionException(file, number, "expected: <Name> <type> [versions] [attrs]");
    }
    String name = tokens[0];
    if (!Character.isUpperCase(name.charAt(0))) {
      throw new DefinitionException(file, number, "field names start with a capital: " + name);
    }
    Type type = Type.parse(tokens[1]);
    if (type.isStruct() && !Character.isUpperCase(type.base().charAt(0))) {
      throw new DefinitionException(file, number, "unknown type " + tokens[1]);
    }
    if (type.array() && type.base().equals("records")) {
      throw new DefinitionException(file, number, "arrays of records are not supported");
    }
    Versions versions = Versions.ALL;
    int next = 2;
    if (tokens.length > 2 && Versions.looksLikeVersions(tokens[2])) {
      versions = Versions.parse(tokens[2]);
      next = 3;
    }
    Versions nullable = Versions.NONE;
    Versions tagged = null;
    int tag = -1;
    String defaultValue = "";
    for (int i = next; i < tokens.length; i++) {
      String token = tokens[i];
      int eq = token.indexOf('=');
      if (eq <= 0) {
        throw new DefinitionException(file, number, "unknown attribute " + token);
      }
      String key = token.substring(0, eq);
      String value = token.substring(eq + 1);
      switch (key) {
        case "nullable" -> nullable = Versions.parse(value);
        case "tagged" -> tagged = Versions.parse(value);
        case "tag" -> tag = Integer.parseInt(value);
        case "default" -> defaultValue = unquote(value);
        default -> throw new DefinitionException(file, number, "unknown attribute " + key);
      }
    }
    if (tag >= 0 && tagged == null) {
      tagged = versions;
    }
    if (tagged == null) {
      tagged = Versions.NONE;
    }
    if (!tagged.isEmpty() && tag < 0) {
      throw new DefinitionException(file, number, "tagged= without tag=");
    }
    if (!tagged.isEmpty() && type.base().equals("records")) {
      throw new DefinitionException(file, number, "records cannot be tagged");
    }
    return new Field(name, type, versions, nullable, tagged, tag, defaultValue, number);
  }

  private static String unquote(String value) {
    if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
      return value.substring(1, value.length() - 1);
    }
    return value;
  }

  private void register(int number, Struct struct) {
    if (message.structs.containsKey(struct.name) || struct.name.equals(message.name)) {
      throw new DefinitionException(file, number, "struct " + struct.name + " is defined twice");
    }
    message.structs.put(struct.name, struct);
  }

  /** Inline structs are registered when their first field arrives; see {@link #line}. */
  private void commitInline() {
    for (Map.Entry<Struct, Integer> e : pendingInline.entrySet()) {
      if (!e.getKey().fields.isEmpty()) {
        register(e.getValue(), e.getKey());
      }
    }
  }

  static Message parse(String file, List<String> lines) {
    DefinitionParser parser = new DefinitionParser(file);
    for (int i = 0; i < lines.size(); i++) {
      parser.line(i + 1, lines.get(i));
    }
    if (parser.message == null) {
      throw new DefinitionException(file, 0, "no header line (request/response/data ...)");
    }
    parser.commitInline();
    parser.check(parser.message.root);
    for (Struct s : parser.message.structs.values()) {
      parser.check(s);
    }
    return parser.message;
  }

  private void check(Struct struct) {
    Map<Integer, String> tags = new HashMap<>();
    for (Field f : struct.fields) {
      if (f.type.isStruct() && !message.structs.containsKey(f.type.base())) {
        throw new DefinitionException(file, f.line, "struct " + f.type.base() + " has no fields");
      }
      if (f.isTagged()) {
        if (!message.flexible.contains(f.tagged.intersect(message.valid))) {
          throw new DefinitionException(
              file, f.line, "tagged versions of " + f.name + " are not all flexible");
        }
        String other = tags.put(f.tag, f.name);
        if (other != null) {
          throw new DefinitionException(
              file, f.line, "tag " + f.tag + " is used by " + other + " and " + f.name);
        }
      }
    }
  }
}
