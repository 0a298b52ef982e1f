package io.kelp.codec.message;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * Fills a message object (ours or Kafka's generated classes) with random values through its {@code
 * setX} methods, keeping a value only if the whole message can still be written at the version
 * under test. That way every field a version has ends up set, without this class knowing the
 * schema: Kafka refuses non-default values in fields a version lacks, and both codecs refuse nulls
 * where they are not allowed.
 */
final class MessagePopulator {
  /** Type-specific values: how each codec represents uuids, records and the like. */
  interface Dialect {
    /** A random value for a type this dialect owns, or null if the type is not special. */
    Object special(Class<?> type, Random random);

    /** Element type of a collection class that is not a plain List, or null. */
    Class<?> collectionElement(Class<?> collectionType);
  }

  private final Random random;
  private final Dialect dialect;
  private final Predicate<Object> writable;
  private final boolean tryNulls;
  private final Object root;

  /**
   * @param writable whether the root message can be written at the version under test
   * @param tryNulls whether to try null for every reference field (kept where allowed)
   */
  MessagePopulator(
      Object root, Random random, Dialect dialect, Predicate<Object> writable, boolean tryNulls) {
    this.root = root;
    this.random = random;
    this.dialect = dialect;
    this.writable = writable;
    this.tryNulls = tryNulls;
  }

  void populate() {
    populate(root, 0);
  }

  private void populate(Object target, int depth) {
    for (Method setter : setters(target.getClass())) {
      Method getter = getterFor(target.getClass(), setter);
      if (getter == null) {
        continue;
      }
      Object before = invoke(getter, target);
      Class<?> type = setter.getParameterTypes()[0];
      if (tryNulls && !type.isPrimitive() && random.nextInt(3) > 0) {
        if (set(setter, target, null) && writable.test(root)) {
          continue;
        }
        set(setter, target, before);
      }
      Object value = randomValue(setter, type, depth);
      if (!(set(setter, target, value) && writable.test(root))) {
        // A second try with a small value, for unsigned types that refuse big ones.
        Object small = smallValue(type);
        if (small == null || !(set(setter, target, small) && writable.test(root))) {
          set(setter, target, before);
          continue;
        }
        value = small;
      }
      fillChildren(value, depth);
    }
  }

  private void fillChildren(Object value, int depth) {
    if (value instanceof Collection<?> c) {
      for (Object element : c) {
        if (isStruct(element)) {
          populate(element, depth + 1);
        }
      }
    } else if (isStruct(value)) {
      populate(value, depth + 1);
    }
  }

  private boolean isStruct(Object value) {
    return value != null
        && !(value instanceof String)
        && !(value instanceof Number)
        && !(value instanceof Boolean)
        && !value.getClass().isArray()
        && dialect.special(value.getClass(), new Random(0)) == null
        && !setters(value.getClass()).isEmpty();
  }

  private Object randomValue(Method setter, Class<?> type, int depth) {
    Object special = dialect.special(type, random);
    if (special != null) {
      return special;
    }
    if (type == boolean.class || type == Boolean.class) {
      return random.nextBoolean();
    }
    if (type == byte.class || type == Byte.class) {
      return (byte) (1 + random.nextInt(126));
    }
    if (type == short.class || type == Short.class) {
      return (short) (1 + random.nextInt(Short.MAX_VALUE));
    }
    if (type == int.class || type == Integer.class) {
      return random.nextInt() | 1;
    }
    if (type == long.class || type == Long.class) {
      return random.nextLong() | 1;
    }
    if (type == double.class || type == Double.class) {
      return random.nextDouble() * 1000;
    }
    if (type == String.class) {
      return randomString();
    }
    if (type == byte[].class) {
      return randomBytes(1 + random.nextInt(8));
    }
    if (type == ByteBuffer.class) {
      return ByteBuffer.wrap(randomBytes(1 + random.nextInt(8)));
    }
    if (type == UUID.class) {
      return new UUID(random.nextLong() | 1, random.nextLong());
    }
    if (Collection.class.isAssignableFrom(type)) {
      return randomCollection(setter, type, depth);
    }
    return newInstance(type);
  }

  private Object smallValue(Class<?> type) {
    if (type == int.class) {
      return 1 + random.nextInt(60000);
    }
    if (type == long.class) {
      return (long) (1 + random.nextInt(Integer.MAX_VALUE));
    }
    if (type == short.class) {
      return (short) (1 + random.nextInt(100));
    }
    return null;
  }

  @SuppressWarnings("unchecked")
  private Object randomCollection(Method setter, Class<?> type, int depth) {
    Class<?> element = dialect.collectionElement(type);
    Collection<Object> collection;
    if (element == null) {
      Type generic = setter.getGenericParameterTypes()[0];
      element = (Class<?>) ((ParameterizedType) generic).getActualTypeArguments()[0];
      collection = new ArrayList<>();
    } else {
      collection = (Collection<Object>) newInstance(type);
    }
    int size = depth > 3 ? 1 : 1 + random.nextInt(2);
    for (int i = 0; i < size; i++) {
      Object value = randomValue(null, element, depth + 1);
      collection.add(value);
    }
    return collection;
  }

  private String randomString() {
    String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._";
    StringBuilder s = new StringBuilder();
    int length = 1 + random.nextInt(10);
    for (int i = 0; i < length; i++) {
      int pick = random.nextInt(20);
      if (pick == 0) {
        s.append('é');
      } else if (pick == 1) {
        s.append('漢');
      } else if (pick == 2) {
        s.appendCodePoint(0x1F41F);
      } else {
        s.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
    }
    return s.toString();
  }

  byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  static List<Method> setters(Class<?> type) {
    List<Method> out = new ArrayList<>();
    for (Method m : type.getMethods()) {
      if (m.getName().startsWith("set")
          && m.getName().length() > 3
          && m.getParameterCount() == 1
          && !Modifier.isStatic(m.getModifiers())
          && m.getReturnType() == type) {
        out.add(m);
      }
    }
    out.sort((a, b) -> a.getName().compareTo(b.getName()));
    return out;
  }

  private static Method getterFor(Class<?> type, Method setter) {
    String name = setter.getName().substring(3);
    String getter = Character.toLowerCase(name.charAt(0)) + name.substring(1);
    for (String candidate : List.of(getter, getter + "Value")) {
      try {
        return type.getMethod(candidate);
      } catch (NoSuchMethodException e) {
        // try the next spelling
      }
    }
    return null;
  }

  private static boolean set(Method setter, Object target, Object value) {
    try {
      setter.invoke(target, value);
      return true;
    } catch (ReflectiveOperationException | IllegalArgumentException e) {
      return false;
    }
  }

  private static Object invoke(Method getter, Object target) {
    try {
      return getter.invoke(target);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  static Object newInstance(Class<?> type) {
    try {
      return type.getConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot create " + type, e);
    }
  }
}
