package io.kelp.codegen;

import io.kelp.codegen.Model.Message;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Entry point run by the build: reads every {@code *.kmsg} definition in a folder and writes one
 * Java class per message, plus the registry of API keys.
 *
 * <p>Arguments: definitions folder, output folder, Java package.
 */
public final class MessageGenerator {
  private MessageGenerator() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 3) {
      throw new IllegalArgumentException(
          "usage: MessageGenerator <definitions> <output> <package>");
    }
    Path input = Path.of(args[0]);
    Path output = Path.of(args[1]);
    String javaPackage = args[2];
    List<Message> messages = readAll(input);
    Path packageDir = output.resolve(javaPackage.replace('.', '/'));
    Files.createDirectories(packageDir);
    for (Message message : messages) {
      String source = new JavaEmitter(message, javaPackage).emit();
      writeIfChanged(packageDir.resolve(message.name + ".java"), source);
    }
    String registry = RegistryEmitter.emit(messages, javaPackage);
    writeIfChanged(packageDir.resolve(RegistryEmitter.CLASS_NAME + ".java"), registry);
  }

  static List<Message> readAll(Path input) throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(input)) {
      files = list.filter(p -> p.toString().endsWith(".kmsg")).sorted().toList();
    }
    List<Message> messages = new ArrayList<>();
    TreeMap<String, String> names = new TreeMap<>();
    for (Path file : files) {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      Message message = DefinitionParser.parse(file.getFileName().toString(), lines);
      String expected = message.name + ".kmsg";
      if (!file.getFileName().toString().equals(expected)) {
        throw new DefinitionException(file.toString(), 1, "file must be named " + expected);
      }
      if (names.put(message.name, file.toString()) != null) {
        throw new DefinitionException(file.toString(), 1, "message " + message.name + " twice");
      }
      messages.add(message);
    }
    return messages;
  }

  private static void writeIfChanged(Path path, String content) throws IOException {
    // Leaving unchanged files alone keeps incremental compilation incremental.
    if (Files.exists(path) && Files.readString(path, StandardCharsets.UTF_8).equals(content)) {
      return;
    }
    Files.writeString(path, content, StandardCharsets.UTF_8);
  }
}
