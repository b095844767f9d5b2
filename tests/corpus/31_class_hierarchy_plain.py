class Shape:
    sides = 0

    def __init__(self, name):
        self.name = name

    def describe(self):
        return f"{self.name} with {self.sides} sides, area {self.area():.2f}"

    def area(self):
        return 0.0

class Square(Shape):
    sides = 4

    def __init__(self, size):
        super().__init__("square")
        self.size = size

    def area(self):
        return self.size ** 2

class Triangle(Shape):
    sides = 3

    def __init__(self, base, height):
        super(Triangle, self).__init__("triangle")
        self.base, self.height = base, height

    def area(self):
        return 0.5 * self.base * self.height

shapes = [Square(2), Triangle(3, 4), Shape("point")]
for s in sorted(shapes, key=lambda s: s.area()):
    print(s.describe())
print(isinstance(shapes[0], Shape), isinstance(shapes[2], Square))
